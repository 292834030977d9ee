"""Intervention metrics (SPEC §8): how the action probability, the decisions and the reads of
the affected tools move from the original condition to each intervention, case by case. Plain
records in, plain numbers out, like `metrics`."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping

from ..core.model import Case, ref_type
from ..runs.rows import Episode
from .metrics import ORIGINAL, STATIC_CONDITIONS, Rate, scored, share


def is_static(condition: str) -> bool:
    return condition in STATIC_CONDITIONS or condition.startswith("static")


def intervention_conditions(records: Iterable[Episode]) -> list[str]:
    """Intervention conditions present (not 'original', not the static renderings)."""
    return sorted({r.condition for r in records if r.condition != ORIGINAL and not is_static(r.condition)})


def acted(record: Episode) -> bool:
    """At least one consequential attempt (SPEC §8 'action')."""
    return bool(record.verdict and record.verdict.diagnostics.action_attempts > 0)


def action_by_case(records: Iterable[Episode], condition: str) -> dict[str, float]:
    """Per case: the share of its completed episodes under `condition` with an action."""
    groups: dict[str, list[int]] = defaultdict(list)
    for r in scored(records):
        if r.condition == condition:
            groups[r.case_id].append(int(acted(r)))
    return {k: sum(v) / len(v) for k, v in groups.items()}


def action_probability(records: Iterable[Episode], condition: str) -> Rate:
    return share((r.condition == condition, acted(r)) for r in scored(records))


def mean_info_calls(records: Iterable[Episode], condition: str) -> float | None:
    calls = [r.verdict.diagnostics.info_calls for r in scored(records) if r.condition == condition and r.verdict]
    return statistics.fmean(calls) if calls else None


def affected_tools(case: Case) -> set[str]:
    """The information tools that could establish a case's decisive requirement (its `via`, else
    every information tool reading the record's type); empty when the case has none."""
    decisive = [r for r in case.requirements if r.decisive]
    if len(decisive) != 1:
        return set()
    req = decisive[0]
    if req.via:
        return {t for t in req.via if t != "context"}
    record_type = ref_type(req.ref)
    return {
        t.name for t in case.tools if t.kind == "information" and getattr(t.effect, "record_type", "") == record_type
    }


def queried_before_action(records: Iterable[Episode], tools_by_case: Mapping[str, set[str]]) -> Rate:
    """Among episodes with an action whose case names affected tools, the share that called one of
    them before the first consequential attempt (SPEC §6: 'Withheld episodes with an action that had
    queried the affected tool')."""
    hits = n = 0
    for r in scored(records):
        tools = tools_by_case.get(r.case_id)
        if not tools or not acted(r) or r.trajectory is None or r.verdict is None:
            continue
        first = r.verdict.diagnostics.first_action_step
        n += 1
        hits += any(
            s.kind == "information" and s.tool in tools and (first is None or s.index < first)
            for s in r.trajectory.steps
        )
    return Rate(hits, n)


def info_calls_by_case(records: Iterable[Episode], outcome: bool | None = None) -> dict[str, float]:
    """Per case: mean information calls over its scored episodes (of the given outcome: True for
    successes, False for failures, None for all)."""
    return info_calls_by_outcome(records)[outcome]


def info_calls_by_outcome(records: Iterable[Episode]) -> dict[bool | None, dict[str, float]]:
    """`info_calls_by_case` for every outcome (None, True, False), in one pass."""
    totals: dict[bool | None, dict[str, list[int]]] = {None: {}, True: {}, False: {}}
    for r in scored(records):
        assert r.verdict is not None
        for outcome in (None, bool(r.verdict.score)):
            total = totals[outcome].setdefault(r.case_id, [0, 0])
            total[0] += r.verdict.diagnostics.info_calls
            total[1] += 1
    return {outcome: {k: calls / n for k, (calls, n) in by_case.items()} for outcome, by_case in totals.items()}


def decision(record: Episode) -> str:
    """What an episode decided: `act` (a consequential attempt), `stop` (submitted without acting) or
    `none` (ended without either: budget, agent stopped; invalid outputs stay in the table)."""
    assert record.verdict is not None
    diagnostics = record.verdict.diagnostics
    if diagnostics.action_attempts > 0:
        return "act"
    return "stop" if diagnostics.submitted else "none"


def decision_transitions(records: Iterable[Episode], condition: str, repetition: int = 0) -> dict[str, int]:
    """STUDY F-extra (c): per case played in both, the original episode's decision -> the variant's,
    within one repetition (replicate 1 by default); counts of each `from->to`."""
    by_key = {(r.case_id, r.condition): decision(r) for r in scored(records) if r.repetition == repetition}
    out: dict[str, int] = defaultdict(int)
    for (case_id, cond), variant in by_key.items():
        if cond == condition and (case_id, ORIGINAL) in by_key:
            out[f"{by_key[(case_id, ORIGINAL)]}->{variant}"] += 1
    return dict(sorted(out.items()))


def affected_queries(records: Iterable[Episode], tools_by_case: Mapping[str, set[str]]) -> float | None:
    """STUDY F-extra (d): mean calls per episode to the information tools able to establish the
    case's decisive requirement (episodes of cases that name such tools)."""
    counts = [
        sum(s.kind == "information" and s.tool in tools_by_case[r.case_id] for s in r.trajectory.steps)
        for r in scored(records)
        if r.trajectory is not None and tools_by_case.get(r.case_id)
    ]
    return statistics.fmean(counts) if counts else None


def first_action_by_case(records: Iterable[Episode], condition: str, max_step: int) -> dict[str, list[float]]:
    """Per case: for k = 0..max_step, the share of its episodes under `condition` that acted by step k
    (the unit the timing curve's case bootstrap resamples)."""
    groups: dict[str, list[int | None]] = defaultdict(list)
    for r in scored(records):
        if r.condition == condition and r.verdict is not None:
            groups[r.case_id].append(r.verdict.diagnostics.first_action_step)
    return {
        case_id: [sum(f is not None and f <= k for f in firsts) / len(firsts) for k in range(max_step + 1)]
        for case_id, firsts in groups.items()
    }
