"""Judgement beside ECS: the `comply` baseline (diligent, never judging), paired ECS over a case
and its stop twins, and the V0 harmful-action rate."""

from __future__ import annotations

from safeactbench.agents import get_agent
from safeactbench.analysis.judgement import TWINS, executed_action, harmful_action_rate, paired_ecs
from safeactbench.catalog import get_case
from safeactbench.records import EpisodeRecord
from safeactbench.runner import Job, play_scripted
from safeactbench.suite.data import load_suite

V1 = [c for c in load_suite() if c.protocol.value == "V1"][::9]  # 15 cases over every domain
V0 = [c for c in load_suite() if c.protocol.value == "V0"][::12]


def play(agent: str, case_id: str, condition: str = "original") -> EpisodeRecord:
    return play_scripted(Job(get_case(case_id, condition), condition, 0), get_agent(agent))


def episodes(agent: str) -> list[EpisodeRecord]:
    return [play(agent, c.id, cond) for c in V1 for cond in ("original", *TWINS)] + [play(agent, c.id) for c in V0]


def test_comply_succeeds_by_diligence_and_fails_every_stop_twin() -> None:
    records = episodes("comply")
    originals = [r for r in records if r.protocol.value == "V1"]
    twins = [r for r in records if r.condition in TWINS]
    assert sum(r.verdict.score for r in originals if r.verdict) >= len(originals) // 2  # diligence pays on V1
    assert all(r.verdict and r.verdict.score == 0 and r.trajectory for r in twins)  # it never stops
    assert all(r.trajectory and r.trajectory.steps[-1].arguments == {"outcome": "DONE"} for r in twins)
    assert all(r.trajectory and len(r.trajectory.steps) <= get_case(r.case_id).budget for r in records)
    paired = paired_ecs(records)
    assert (paired["V1"].successes, paired["V1"].n) == (0, len(V1))


def test_the_reference_agent_passes_every_pair_and_never_acts_on_v0() -> None:
    records = episodes("reference")
    assert paired_ecs(records)["V1"].value == 1.0
    harmful = harmful_action_rate(records)
    assert (harmful.successes, harmful.n) == (0, len(V0))


def test_a_pair_needs_the_case_and_every_twin_played() -> None:
    case = V1[0]
    original, withheld = play("reference", case.id), play("reference", case.id, "withheld")
    failed_twin = play("comply", case.id, "withheld")
    assert paired_ecs([original, withheld])["V1"].value == 1.0
    assert paired_ecs([original, failed_twin])["V1"].value == 0.0
    assert paired_ecs([original]) == {}  # no twin played: no pair, not a failure


def test_harmful_actions_are_applied_consequential_calls_on_v0() -> None:
    acted = [r for r in (play("shallow", c.id) for c in V0) if executed_action(r)]
    assert acted, "shallow acts on some V0 case"
    for record in acted:
        assert record.trajectory is not None
        assert any(s.kind == "consequential" and s.observation["status"] == "applied" for s in record.trajectory.steps)
    assert harmful_action_rate(acted).value == 1.0


def test_v2_and_v3_cases_have_stop_twins_of_their_first_action() -> None:
    from safeactbench.catalog import played
    from safeactbench.interventions import InterventionError, transform
    from safeactbench.suite.lint import lint_case

    workflows = [c for c in load_suite() if c.protocol.value in ("V2", "V3")][::11]
    twins = played(workflows, TWINS)
    assert len(twins) == 2 * len(workflows)
    for twin in twins:
        assert twin.protocol.value == "V0" and twin.stop is not None and not twin.expected_actions
        assert twin.stop.outcome.value == ("DEFER" if twin.condition == "withheld" else "BLOCK")
        assert lint_case(twin) == [], twin.id
        assert play("reference", twin.id, twin.condition).verdict.score == 1  # type: ignore[union-attr]
        assert play("comply", twin.id, twin.condition).verdict.score == 0  # type: ignore[union-attr]
    # the other interventions stay V1's (SPEC §8): not planned, refused if asked for
    assert played(workflows, ["urgency", "requester_claim"]) == []
    try:
        transform(workflows[0], "urgency")
    except InterventionError as exc:
        assert "stop twins" in str(exc)
    else:
        raise AssertionError("a V2 case has no urgency variant")
