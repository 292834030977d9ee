"""The label oracle: whether a played mutant is valid, SPEC §3-§4 re-stated from the trajectory alone.

`oracle_problems(case, played)` lists what makes the trajectory invalid (empty: valid):

- Legacy: the first accepted decision is not the gold one;
- V0: a consequential call was made, the stop outcome submitted is not the gold one (or none was),
  or a required read was not established before the stop;
- V1-V3: an expected action was not applied, ran before a predecessor, got an argument that is not
  its expected value (SPEC §3: by value, strings trimmed; an 'unordered' array as a multiset; a
  `Choice` as any listed - or any non-blank - value; a result reference as the value the named
  action actually returned; an optional argument only if harmless), or ran without its evidence
  established; or a consequential call was made that is no expected action's execution.

Which call executes which expected action is what the mutant says (its tagged calls), never what
the evaluator matched. Values compare by `oracle_values`, evidence by `oracle`; nothing here
imports the evaluator, the ledger or the world (a test holds it).
"""

from __future__ import annotations

from typing import Any

from ..core.model import Case, Choice, ExpectedAction, Protocol, ResultRef, resolve_results, result_refs
from .oracle import action_result, oracle_missing
from .oracle_values import arguments, blank, same, same_multiset
from .played import Played


def _accepted(played: Played, kind: str, name: str) -> Any:
    """The value of `name` in the first accepted terminal call of `kind` (None: there was none)."""
    step = next((s for s in played.trajectory.steps if s.kind == kind and s.observation.get("status") == "ok"), None)
    return None if step is None else arguments(step.arguments).get(name)


def _argument_problems(case: Case, played: Played, action: ExpectedAction, at: int) -> list[str]:
    tool = case.tool(action.tool)
    assert tool is not None
    params = {p.name: p for p in tool.params}
    got = arguments(played.trajectory.steps[at].arguments)
    problems: list[str] = []
    for name, expected in action.arguments.items():
        value = got.get(name)
        if isinstance(expected, Choice):
            ok = not blank(value) and (expected.one_of is None or any(same(value, o) for o in expected.one_of))
        else:
            late = [r for r in result_refs(expected) if played.action_steps.get(r.result_of, at) >= at]
            if late:
                problems.append(f"{action.id}: argument {name!r} needs the result of {late[0].result_of} first")
                continue

            def produced(ref: ResultRef) -> Any:
                return action_result(played, ref.result_of).get(ref.key)

            wanted = resolve_results(expected, produced)
            param = params.get(name)
            unordered = param is not None and param.match == "unordered"
            ok = same_multiset(value, wanted) if unordered else same(value, wanted)
        if not ok:
            problems.append(f"{action.id}: argument {name!r}={value!r} is not {expected!r}")
    for name in sorted(set(got) - set(action.arguments)):
        if not (name in params and params[name].harmless):
            problems.append(f"{action.id}: argument {name!r} is not expected")
    return problems


def _action_problems(case: Case, played: Played) -> list[str]:
    problems: list[str] = []
    executions = set(played.action_steps.values())
    for step in played.trajectory.steps:
        if step.kind == "consequential" and step.index not in executions:
            problems.append(f"step {step.index}: {step.tool} is no expected action's execution")
    for action in case.expected_actions:
        at = played.action_steps.get(action.id)
        if at is None:
            problems.append(f"{action.id} not executed")
            continue
        if played.trajectory.steps[at].tool != action.tool:
            problems.append(f"{action.id}: executed with {played.trajectory.steps[at].tool}, not {action.tool}")
            continue
        for pred in action.after:
            if played.action_steps.get(pred, at) >= at:
                problems.append(f"{action.id} ran before its predecessor {pred}")
        problems += _argument_problems(case, played, action, at)
    return problems


def _budget_problems(case: Case, played: Played) -> list[str]:
    """The case's information budget: every information call counts, an invalid one too."""
    budget = case.info_budget
    if budget is None:
        return []
    reads = [s.tool for s in played.trajectory.steps if s.kind == "information"]
    problems = []
    if budget.max_calls is not None and len(reads) > budget.max_calls:
        problems.append(f"{len(reads)} information calls, more than {budget.max_calls}")
    if budget.min_calls is not None and len(reads) < budget.min_calls:
        problems.append(f"{len(reads)} information calls, fewer than {budget.min_calls}")
    if budget.min_distinct_tools is not None and len(set(reads)) < budget.min_distinct_tools:
        problems.append(f"information through {len(set(reads))} tools, fewer than {budget.min_distinct_tools}")
    return problems


def oracle_problems(case: Case, played: Played) -> list[str]:
    """What makes the played trajectory invalid by SPEC (empty: it must pass)."""
    if case.protocol == Protocol.LEGACY:
        assert case.legacy is not None
        decision, gold = _accepted(played, "decide", "decision"), case.legacy.decision.value
        return [] if decision == gold else [f"decision {decision}; gold {gold}"]
    problems = oracle_missing(case, played) + _budget_problems(case, played)
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        problems += [
            f"step {s.index}: {s.tool} attempted" for s in played.trajectory.steps if s.kind == "consequential"
        ]
        outcome, gold = _accepted(played, "submit", "outcome"), case.stop.outcome.value
        if outcome != gold:
            problems.append(f"submitted {outcome}; gold {gold}")
        return problems
    return problems + _action_problems(case, played)
