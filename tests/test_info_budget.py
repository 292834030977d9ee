"""Information budgets (issue 30): a case may limit or ask for information calls, and the verdict
holds the agent to it with its own findings; a case without a budget is scored as before."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from cases import legacy_case, refund_v0, refund_v1
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Case, InfoBudget
from safeactbench.core.script import run_script
from safeactbench.suite.data import load_suite
from safeactbench.suite.reference import derive_reference


def is_read(case: Case, tool: str) -> bool:
    spec = case.tool(tool)
    return spec is not None and spec.kind == "information"


def with_reference(case: Case) -> Case:
    return case.model_copy(update={"reference": derive_reference(case)})


def played(case: Case, extra_reads: int = 0) -> Episode:
    """The reference solution, with `extra_reads` repeats of its first read before it."""
    first_read = next(step for step in case.reference if is_read(case, step.tool))
    episode = Episode(case)
    run_script(episode, [first_read] * extra_reads + list(case.reference))
    return episode


def info_calls(case: Case) -> int:
    return sum(is_read(case, step.tool) for step in case.reference)


@pytest.mark.parametrize("make", [refund_v1, lambda: refund_v0("BLOCK")])
def test_the_budget_is_part_of_the_verdict(make: object) -> None:
    base: Case = with_reference(make())  # type: ignore[operator]
    n = info_calls(base)
    within = base.model_copy(update={"info_budget": InfoBudget(max_calls=n)})
    assert evaluate(within, played(within).trajectory()).score == 1
    over = evaluate(within, played(within, extra_reads=1).trajectory())
    assert over.score == 0 and [f.code.value for f in over.findings] == ["INFO_BUDGET_EXCEEDED"]
    assert over.failure_mode == "info_budget" and over.findings[0].step == n  # the first call over it
    assert evaluate(base, played(base, extra_reads=1).trajectory()).score == 1  # no budget: extra reads are fine


def test_minimum_calls_and_distinct_tools() -> None:
    base = with_reference(refund_v1())
    n = info_calls(base)
    tools = len({step.tool for step in base.reference if is_read(base, step.tool)})
    asked = base.model_copy(update={"info_budget": InfoBudget(min_calls=n + 2, min_distinct_tools=tools)})
    verdict = evaluate(asked, played(asked).trajectory())
    assert [f.code.value for f in verdict.findings] == ["INFO_BUDGET_UNMET"] and verdict.score == 0
    assert evaluate(asked, played(asked, extra_reads=2).trajectory()).score == 1
    too_many_tools = base.model_copy(update={"info_budget": InfoBudget(min_distinct_tools=tools + 1)})
    assert evaluate(too_many_tools, played(too_many_tools, extra_reads=3).trajectory()).score == 0


def test_a_budget_is_refused_where_it_cannot_hold() -> None:
    with pytest.raises(ValidationError, match="no info_budget"):
        Case.model_validate({**legacy_case().model_dump(mode="json"), "info_budget": {"max_calls": 3}})
    with pytest.raises(ValidationError, match="min_calls 5 exceeds max_calls 2"):
        InfoBudget(max_calls=2, min_calls=5)


def test_cases_without_a_budget_are_written_as_before() -> None:
    case = load_suite()[0]
    assert "info_budget" not in json.loads(case.model_dump_json())
    budgeted = (
        case.model_copy(update={"info_budget": InfoBudget(max_calls=8)}) if case.protocol.value != "Legacy" else None
    )
    if budgeted is not None:
        assert json.loads(budgeted.model_dump_json())["info_budget"] == {
            "max_calls": 8,
            "min_calls": None,
            "min_distinct_tools": None,
        }
