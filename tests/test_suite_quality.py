"""SPEC §7 and issue 3: the suite's composition, balance, realism, and what trivial policies score."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from safeactbench.agents import get_agent
from safeactbench.core.model import Protocol
from safeactbench.domains import DOMAINS
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.suite.data import load_suite
from safeactbench.suite.report import decisive_named, gold_label, masked, needs_refinement

SUITE = load_suite()
INTERACTIVE = [c for c in SUITE if c.protocol != Protocol.LEGACY]
TRIVIAL = ("eager", "shallow", "skeptic", "credulous", "random", "always_block", "always_defer")


def test_exact_composition() -> None:
    assert len(SUITE) == 656
    assert Counter(c.protocol.value for c in SUITE) == {"Legacy": 86, "V0": 175, "V1": 131, "V2": 132, "V3": 132}
    assert Counter(c.domain for c in SUITE) == {
        "customer": 112,
        "engineering": 109,
        "legal_finance": 144,
        "research": 97,
        "smart_home": 96,
        "healthcare": 98,
    }
    for protocol, prefix, n in (
        ("Legacy", "SAB-L", 86),
        ("V0", "SAB-V0", 175),
        ("V1", "SAB-V1", 131),
        ("V2", "SAB-V2", 132),
        ("V3", "SAB-V3", 132),
    ):
        ids = sorted(c.id for c in SUITE if c.protocol.value == protocol)
        assert ids == [f"{prefix}-{i:03d}" for i in range(1, n + 1)]


def test_gold_balance() -> None:
    legacy = Counter(gold_label(c) for c in SUITE if c.protocol == Protocol.LEGACY)
    assert all(abs(legacy[d] / 86 - 1 / 3) < 0.05 for d in ("ALLOW", "BLOCK", "DEFER")), legacy
    v0 = [c for c in SUITE if c.protocol == Protocol.V0]
    block = sum(gold_label(c) == "BLOCK" for c in v0) / len(v0)
    assert 0.45 <= block <= 0.55
    assert sum("workflow" in c.tags for c in v0) / len(v0) >= 0.25


def test_workflow_shapes() -> None:
    for case in SUITE:
        n = len(case.expected_actions)
        if case.protocol == Protocol.V2:
            assert 2 <= n <= 5
        if case.protocol == Protocol.V3:
            assert 3 <= n <= 6
            preds = Counter(p for a in case.expected_actions for p in a.after)
            assert max(preds.values()) >= 2 or any(len(a.after) >= 2 for a in case.expected_actions)


def test_families_and_domains() -> None:
    by_family = Counter(c.family for c in SUITE)
    assert max(by_family.values()) <= 0.05 * len(SUITE)
    for family in by_family:
        assert len({c.protocol for c in SUITE if c.family == family}) >= 3, family
    for domain in DOMAINS:
        assert len(domain.families) >= 6, domain.name
        kinds = Counter(t.kind for t in domain.tools)
        assert kinds["information"] >= 10 and kinds["consequential"] >= 6, domain.name


def test_realism() -> None:
    tasks = [masked(c.task) for c in SUITE]
    assert len(set(tasks)) == len(tasks), "two tasks are equal once ids and numbers are masked"
    assert sum(bool(c.distractors) for c in INTERACTIVE) / len(INTERACTIVE) >= 0.5
    refined = sum(needs_refinement(c) for c in INTERACTIVE)
    assert refined / len(INTERACTIVE) >= 0.1


@pytest.fixture(scope="module")
def baseline_scores() -> dict[str, dict[str, list[int]]]:
    out: dict[str, dict[str, list[int]]] = {}
    for name in TRIVIAL:
        agent = get_agent(name)
        scores: dict[str, list[int]] = {}
        for case in SUITE:
            record = play_scripted(Job(case, "original", 0), agent)
            scores.setdefault(case.protocol.value, []).append(record.verdict.score)
            scores.setdefault(case.id, []).append(record.verdict.score)
        out[name] = scores
    return out


def test_no_trivial_baseline_scores_well(baseline_scores: dict[str, dict[str, list[int]]]) -> None:
    for name, scores in baseline_scores.items():
        assert sum(scores["Legacy"]) / len(scores["Legacy"]) <= 0.40, name
        for protocol in ("V0", "V1", "V2", "V3"):
            assert sum(scores[protocol]) / len(scores[protocol]) <= 0.10, (name, protocol)


def test_shallow_fails_where_the_decisive_record_is_not_named(
    baseline_scores: dict[str, dict[str, list[int]]],
) -> None:
    unnamed = [c for c in INTERACTIVE if decisive_named(c) is False]
    assert len(unnamed) > 200
    assert all(baseline_scores["shallow"][c.id] == [0] for c in unnamed)


def test_published_validation_report_is_current(tmp_path: Path) -> None:
    from safeactbench.cli.suite import write_suite_report

    fresh = tmp_path / "suite.md"
    write_suite_report(fresh)
    published = Path(__file__).resolve().parent.parent / "docs" / "suite.md"
    assert published.read_text() == fresh.read_text(), "run `safeactbench validate --report docs/suite.md`"
