"""The data-consistency lint (`authoring/consistency.py`, run by `validate`): each rule rejects the slip
it names, on a clean hand-written case, and the packaged suite and its variants pass it."""

from __future__ import annotations

from typing import Any

import pytest

from cases import refund_v1
from safeactbench.authoring.consistency import consistency_problems
from safeactbench.core.model import Case, Record
from safeactbench.suite.lint import lint_case


def with_records(case: Case, *records: Record, **update: Any) -> Case:
    return case.model_copy(update={"records": [*case.records, *records], **update})


def address(record_id: str, **fields: Any) -> Record:
    return Record(type="address", id=record_id, fields={"line1": "2 Mill Lane", "postal_code": "12345", **fields})


def test_a_clean_case_has_no_problem() -> None:
    case = with_records(refund_v1(), address("A1", city="Graz", country="AT"))
    assert list(consistency_problems(case)) == []


@pytest.mark.parametrize(
    ("records", "task", "expected"),
    [
        ([address("A1", city="Graz", country="NL")], None, "city Graz is in AT, not NL"),
        (
            [Record(type="home", id="H1", fields={"city": "Turku", "timezone": "Europe/Paris"})],
            None,
            "time zone Europe/Helsinki",
        ),
        (
            [
                Record(type="patient", id="P1", fields={"name": "Ana Ruiz", "email": "aruiz@mail.example"}),
                Record(type="patient", id="P2", fields={"name": "Ana Ruiz", "email": "ARuiz@mail.example"}),
            ],
            None,
            "share the e-mail address",
        ),
        ([Record(type="note", id="N1", fields={"text": "Reason: TBD"})], None, "placeholder text"),
        ([], "Refund the duplicate charge. Lorem ipsum.", "task: placeholder text"),
        ([Record(type="invoice", id="I1", fields={"amount": 10.0, "currency": "Euro"})], None, "not an ISO code"),
        (
            [
                Record(type="order", id="O9", fields={"total": 10.0, "currency": "GBP"}),
                Record(type="payment", id="P9", fields={"order_id": "O9", "amount": 10.0, "currency": "EUR"}),
            ],
            None,
            "payment:P9 is in EUR but the linked order:O9 in GBP",
        ),
    ],
    ids=[
        "city-country",
        "timezone",
        "shared-email",
        "placeholder-record",
        "placeholder-task",
        "currency-code",
        "currency-link",
    ],
)
def test_each_slip_is_rejected_by_validate(records: list[Record], task: str | None, expected: str) -> None:
    base = refund_v1()
    case = with_records(base, *records, task=task or base.task)
    problems = lint_case(case)
    assert any(expected in p for p in problems), problems


def test_the_distractors_intervention_may_copy_people_with_their_e_mail() -> None:
    people = [
        Record(type="patient", id="P1", fields={"email": "aruiz@mail.example"}),
        Record(type="patient", id="P2", fields={"email": "aruiz@mail.example"}),
    ]
    copied = with_records(refund_v1(), *people, condition="distractors", distractors=["patient:P2"])
    assert list(consistency_problems(copied)) == []
    assert list(consistency_problems(copied.model_copy(update={"condition": "original"})))


def test_a_search_that_shows_the_required_field_counts_as_evidence() -> None:
    """Summary evidence: a search whose results show a requirement's field of the required record
    establishes it as well as the get tool does, so the lint rejects a `via` that leaves it out."""
    from safeactbench.core.model import split_ref
    from safeactbench.core.tool_spec import summary_tools
    from safeactbench.suite.data import load_suite

    for case in load_suite():
        for req in case.requirements:
            if req.via is None or not isinstance(req.ref, str):
                continue
            shown = summary_tools(case.tools, split_ref(req.ref)[0], req.field)
            if shown:
                assert set(shown) <= set(req.via), (case.id, req.id)
                narrowed = req.model_copy(update={"via": [v for v in req.via if v not in shown]})
                broken = case.model_copy(
                    update={"requirements": [narrowed if r.id == req.id else r for r in case.requirements]}
                )
                assert any(f"{shown[0]} shows {req.field}" in p for p in lint_case(broken))
                return
    raise AssertionError("no requirement in the suite has a summary tool")


def test_the_freshness_measure_finds_a_fact_an_earlier_action_made_stale() -> None:
    """docs/suite.md's freshness line: a later action requiring a fresh read of a record that an
    earlier action updates. Issue 15 asks for >= 15 % of V2/V3; the measure must also say no where
    the requirement accepts the earlier action's own result."""
    from safeactbench.suite.data import load_suite
    from safeactbench.suite.report import needs_reread

    workflows = [c for c in load_suite() if c.protocol.value in ("V2", "V3")]
    rereads = [c for c in workflows if needs_reread(c)]
    assert len(rereads) >= 0.15 * len(workflows)
    for case in rereads:
        fresh = [r for r in case.requirements if r.fresh and r.result_of is None]
        first = case.expected_actions[0]
        covered = [
            r.model_copy(update={"result_of": first.id}) if r.ref == first.target else r for r in case.requirements
        ]
        if len(fresh) and not needs_reread(case.model_copy(update={"requirements": covered})):
            return
    raise AssertionError("no re-read case where the earlier action's own result would settle it")
