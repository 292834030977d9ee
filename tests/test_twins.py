"""Stop twins are written, not patched (SPEC §8): every record tells the story of the twin's
decisive value, only calls reveal the variant, and the stop rests on what the rule says (SPEC §3)."""

from __future__ import annotations

from functools import cache

from safeactbench.authoring.consistency import NARRATIVE_FIELDS, consistency_problems
from safeactbench.authoring.draft import settled
from safeactbench.authoring.stops import is_identity, named_records
from safeactbench.core.model import Case
from safeactbench.core.public import public_view
from safeactbench.suite.catalog import played
from safeactbench.suite.data import load_suite
from safeactbench.suite.interventions import STOP_TWINS, decisive_requirement


@cache
def acting() -> list[Case]:
    return [c for c in load_suite() if c.protocol.value in ("V1", "V2", "V3")]


@cache
def twins(condition: str) -> dict[str, Case]:
    return {t.id: t for t in played(acting(), [condition])}


def test_nothing_the_agent_sees_before_its_first_call_tells_a_twin_from_its_case() -> None:
    differ = []
    for case in acting():
        shown = public_view(case).model_dump_json()
        differ += [(case.id, c) for c in STOP_TWINS if public_view(twins(c)[case.id]).model_dump_json() != shown]
    assert len(twins("withheld")) == len(twins("contradicted")) == len(acting())
    assert differ == []


def test_a_contradicted_record_reads_as_its_family_writes_the_forbidding_state() -> None:
    for case in acting():
        req = decisive_requirement(case)
        twin = twins("contradicted")[case.id]
        record = next(r for r in settled(twin) if r.ref == req.ref)  # a live record: once synchronized
        assert record.fields[req.field] == req.block_value, case.id
        for name in NARRATIVE_FIELDS:
            if record.fields.get(name):  # every word of the record was written for this state
                assert record.fields[name] == req.block_fields[name], (case.id, name)


def test_a_decisive_record_that_keeps_its_permitting_words_is_a_lint_problem() -> None:
    case = next(c for c in acting() if decisive_requirement(c).block_fields)
    req = decisive_requirement(case)
    silent = req.model_copy(update={"block_fields": {}})
    broken = case.model_copy(update={"requirements": [silent if r.id == req.id else r for r in case.requirements]})
    problems = [p for p in consistency_problems(broken) if "block_fields must say" in p]
    assert problems and all(req.id in p for p in problems)


def test_a_withheld_record_is_absent_and_the_stop_needs_the_read_that_finds_it_missing() -> None:
    for case in acting():
        req = decisive_requirement(case)
        twin = twins("withheld")[case.id]
        assert req.ref not in {r.ref for r in twin.records} and [r.ref for r in twin.absent] == [req.ref]
        assert twin.stop is not None
        reads = [twin.requirement(r) for r in twin.stop.required_reads]
        assert [r.operator for r in reads if r.decisive] == ["absent"], case.id


def test_a_stop_requires_its_decisive_fact_and_the_named_records_only() -> None:
    stops = [c for c in load_suite() if c.protocol.value == "V0"]
    for case in [*stops, *twins("withheld").values(), *twins("contradicted").values()]:
        assert case.stop is not None
        reads = [case.requirement(r) for r in case.stop.required_reads]
        present = {r.ref for r in case.records}
        assert [r for r in reads if not r.decisive and not is_identity(r)] == [], case.id
        assert {str(r.ref) for r in reads if is_identity(r)} == set(named_records(case.context, present)), case.id
        assert sum(r.decisive for r in reads) == 1, case.id
