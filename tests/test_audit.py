"""The mutation audit of the evaluator (issue 7): a seeded sample in CI, and proof the audit has teeth.

The full-suite audit (docs/audit.md) takes over a minute; CI runs a stratified sample. The second
half breaks the evaluator on purpose, one rule at a time, and checks the audit notices."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from safeactbench import audit
from safeactbench.audit import OPERATORS, AuditReport, audit_command, run_audit, sample_cases
from safeactbench.core import action_check, ledger, replay
from safeactbench.suite.data import load_suite

# seed 4 draws, among its 60 cases, one of the few whose requirements waive freshness, so every
# operator (stale_evidence / fresh_reread included) produces mutants
SEED = 4


@pytest.fixture(scope="module")
def sampled() -> AuditReport:
    return run_audit(load_suite(), sample=60, seed=SEED)


def test_sampled_audit_has_no_false_acceptance_or_rejection(sampled: AuditReport) -> None:
    assert sampled.total.false_accepts == 0, sampled.failures[:5]
    assert sampled.total.false_rejects == 0, sampled.failures[:5]
    assert not sampled.reference_failures and not sampled.inconsistencies and not sampled.errors
    assert sampled.ok


def test_every_operator_and_protocol_produces_mutants(sampled: AuditReport) -> None:
    assert sampled.cases == 60
    assert set(sampled.cases_by_protocol) == {"Legacy", "V0", "V1", "V2", "V3"}
    # no packaged case has values inside an object or array argument: tests/test_audit_concepts.py
    # audits cases built by hand that have them (and every other concept of the case model)
    produced = {name for name, t in sampled.operators.items() if t.mutants}
    assert set(sampled.operators) == set(OPERATORS) and set(OPERATORS) - produced <= {"nested_argument"}
    invalidating = [name for name, (kind, _) in OPERATORS.items() if kind == "invalidating"]
    assert all(sampled.operators[name].must_fail > 0 for name in invalidating if name in produced)
    assert all(t.mutants >= 100 for name, t in sampled.protocols.items() if name != "Legacy")
    assert sampled.total.must_fail > 1000 and sampled.total.must_pass > 500


def test_sample_is_stratified_seeded_and_in_suite_order() -> None:
    suite = load_suite()
    first, again = sample_cases(suite, 25, seed=3), sample_cases(suite, 25, seed=3)
    assert [c.id for c in first] == [c.id for c in again]
    assert [c.id for c in first] != [c.id for c in sample_cases(suite, 25, seed=4)]
    assert sorted(c.protocol.value for c in first).count("V3") == 5
    order = {c.id: i for i, c in enumerate(suite)}
    assert [order[c.id] for c in first] == sorted(order[c.id] for c in first)


def test_report_renders_as_json_and_markdown(sampled: AuditReport) -> None:
    data = json.loads(sampled.to_json())
    assert data["ok"] is True and data["total"]["false_accepts"] == 0
    assert set(data["operators"]) == set(OPERATORS)
    assert data["operators"]["drop_read"]["kind"] == "invalidating"
    text = sampled.to_markdown()
    assert "**0 false acceptances** and **0 false rejections**" in text
    assert all(f"`{name}`" in text for name in OPERATORS)


def test_the_published_audit_is_one_run_of_the_current_operators() -> None:
    """docs/audit.md and docs/audit.json are the command's two renderings of one report, with the
    operators of today's registry (regenerate both with the command docs/audit.md names)."""
    docs = Path(__file__).resolve().parent.parent / "docs"
    data = json.loads((docs / "audit.json").read_text(encoding="utf-8"))
    assert data["ok"] and data["total"]["false_accepts"] == data["total"]["false_rejects"] == 0
    assert {name: (op["kind"], op["description"]) for name, op in data["operators"].items()} == OPERATORS
    report = AuditReport.from_dict(data)
    assert report.to_json() == (docs / "audit.json").read_text(encoding="utf-8")
    assert report.to_markdown() == (docs / "audit.md").read_text(encoding="utf-8")


def test_audit_command_writes_the_report_and_exits_zero(tmp_path: Path) -> None:
    out = tmp_path / "nested" / "audit.json"
    assert audit_command(12, True, out) == 0
    assert json.loads(out.read_text())["sample"] == 12
    md = tmp_path / "audit.md"
    assert audit_command(12, False, md) == 0
    assert md.read_text().startswith("# Evaluator audit")


# ---------------------------------------------------------------------------- the audit has teeth


def _loose_entity(original: Any) -> Any:
    """A ledger that lets a fact about another record of the same type count (entity binding broken)."""

    def establishing_fact(self: ledger.Ledger, req: Any, ref: str, before: int, action_steps: Any = None) -> Any:
        same_type = {r for (r, f) in self._by_key if f == req.field and r.split(":")[0] == ref.split(":")[0]}
        for other in sorted(same_type | {ref}):
            found = original(self, req, other, before, action_steps)
            if found is not None:
                return found
        return None

    return establishing_fact


BROKEN: dict[str, tuple[str, Any, str, str]] = {
    # name: (object path, replacement factory, operator that must notice, "fa" or "fr")
    "freshness ignored": (
        "ledger.Ledger.is_fresh",
        lambda orig: lambda self, fact, before: True,
        "stale_evidence",
        "fa",
    ),
    "via ignored": (
        "ledger.Ledger._source_allowed",
        lambda orig: staticmethod(lambda req, fact, step: True),
        "wrong_source_read",
        "fa",
    ),
    "entity binding ignored": ("ledger.Ledger.establishing_fact", _loose_entity, "near_miss_read", "fa"),
    "arguments not compared": ("action_check.values_equal", lambda orig: lambda a, b: True, "change_argument", "fa"),
    "numbers compared by type": (
        "action_check.values_equal",
        lambda orig: lambda a, b: type(a) is type(b) and a == b,
        "numeric_format",
        "fr",
    ),
    "evidence never checked": (
        "replay.Replay.check_requirements",
        lambda orig: lambda self, ids, before: (list(ids), []),
        "action_before_evidence",
        "fa",
    ),
}


def _patch(monkeypatch: pytest.MonkeyPatch, path: str, factory: Any) -> None:
    module_name, *attrs = path.split(".")
    owner: Any = {"ledger": ledger, "action_check": action_check, "replay": replay}[module_name]
    for attr in attrs[:-1]:
        owner = getattr(owner, attr)
    original = owner.__dict__[attrs[-1]] if isinstance(owner, type) else getattr(owner, attrs[-1])
    if isinstance(original, staticmethod):
        original = original.__func__
    monkeypatch.setattr(owner, attrs[-1], factory(original))


@pytest.fixture(scope="module")
def teeth_cases() -> list[Any]:
    suite = load_suite()
    # workflows whose later gates waive freshness for some facts and demand it for others
    workflows = [c for c in suite if c.protocol.value in ("V2", "V3")]
    freshness = [c for c in workflows if any(not r.fresh for r in c.requirements)][:3]
    return [*sample_cases(suite, 30, seed=1), *freshness]


@pytest.fixture(scope="module")
def intact(teeth_cases: list[Any]) -> AuditReport:
    return run_audit(teeth_cases)


def _false(report: AuditReport, operator: str, kind: str) -> int:
    tally = report.operators.get(operator)
    assert tally is not None
    return tally.false_accepts if kind == "fa" else tally.false_rejects


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_audit_catches_a_broken_evaluator(
    name: str, monkeypatch: pytest.MonkeyPatch, teeth_cases: list[Any], intact: AuditReport
) -> None:
    path, factory, operator, kind = BROKEN[name]
    assert intact.ok and _false(intact, operator, kind) == 0
    _patch(monkeypatch, path, factory)
    broken = run_audit(teeth_cases)
    assert _false(broken, operator, kind) > 0, f"{name}: {operator} did not notice"
    assert not broken.ok


def test_audit_command_exits_one_on_a_false_acceptance(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(action_check, "values_equal", lambda a, b: True)
    assert audit_command(10, True, tmp_path / "a.json") == 1
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["ok"] is False and report["failures"]
    first = report["failures"][0]
    assert {"case_id", "operator", "expected", "score", "outcome", "mutation", "detail"} <= set(first)


# ---------------------------------------------------------------------------- the label oracle


def _mutants(case_ids: list[str]) -> Iterator[tuple[Any, Any, Any]]:
    by_id = {c.id: c for c in load_suite()}
    for case_id in case_ids:
        yield from audit.mutants(by_id[case_id])


def test_the_oracle_labels_a_redundant_read_as_droppable() -> None:
    """drop_read carries both labels: a read no gate depends on (e.g. a listing before the get that
    establishes the requirement) may be dropped; a read a gate depends on may not."""
    suite = load_suite()
    labels = {
        (m.operator, m.expect)
        for case in [c for c in suite if c.protocol.value in ("V1", "V2")][:40]
        for m, _, _ in audit.mutants(case)
        if m.operator == "drop_read"
    }
    assert ("drop_read", "fail") in labels and ("drop_read", "pass") in labels


def test_mutants_are_deterministic() -> None:
    ids = [c.id for c in sample_cases(load_suite(), 10, seed=9)]
    first = [(m.operator, m.expect, m.note, m.calls) for m, _, _ in _mutants(ids)]
    again = [(m.operator, m.expect, m.note, m.calls) for m, _, _ in _mutants(ids)]
    assert first == again and len(first) > 100
