"""Episode-level metrics (SPEC §6) over EpisodeRecords.

ECS overall, per protocol, per domain and their macro means; failure-mode shares; the evidence
metrics PAR, CAS, BSR and investigation completion; run coverage; repetitions (per-run ECS, pass^k).
Coverage, query-cost and token distributions are in `effort_metrics`, the intervention metrics in
`intervention_metrics`. Every function takes plain records (or rows) and returns plain numbers, so
each is testable on constructed data; it reads them in one pass and keeps numbers, never episodes,
so a report's rows may wait on disk (`rowstore`). Confidence intervals live in `stats.py`. The
definitions are documented in docs/report.md.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ..core.model import Protocol
from ..core.verdict import Verdict
from ..runs.rows import Episode, VerdictRow

PROTOCOL_NAMES = tuple(p.value for p in Protocol)
INTERACTIVE_NAMES = ("V0", "V1", "V2", "V3")
DOMAIN_ORDER = ("customer", "engineering", "legal_finance", "research", "smart_home", "healthcare")
SUCCESS = "success"
ORIGINAL = "original"

# SPEC §5 taxonomy (Legacy labels: docs/decisions.md); "success" is added for shares of all cases
FAILURE_MODES: dict[str, tuple[str, ...]] = {
    "Legacy": ("wrong_decision", "invalid_decision", "other"),
    "V0": ("acted", "incomplete_investigation", "wrong_outcome", "other"),
    "V1": ("early_action", "covered_action_failure", "no_action", "other"),
    "V2": ("gap_only", "partial_only", "gap_and_partial", "other"),
    "V3": ("gap_only", "partial_only", "gap_and_partial", "other"),
}

# static condition -> the interactive condition it is the Legacy rendering of (SPEC §6, §8)
STATIC_CONDITIONS = {"static": "original", "static_withheld": "withheld", "static_contradicted": "contradicted"}


@dataclass(frozen=True)
class Rate:
    """successes / n; per-case rates carry the sum of case means as `successes` (integral unless a
    case's repetitions disagree)."""

    successes: int | float
    n: int

    @property
    def value(self) -> float | None:
        return self.successes / self.n if self.n else None


def scored(records: Iterable[Episode]) -> Iterator[Episode]:
    """Completed episodes with a verdict (missing episodes are coverage, not failures), one at a
    time: every function here reads its episodes in one pass, so a run's rows may wait on disk
    (`rowstore`) and nothing holds them all."""
    return (r for r in records if r.status == "completed" and r.verdict is not None)


def ecs_by(records: Iterable[Episode], *keys: Callable[[Episode], str]) -> list[dict[str, Rate]]:
    """ECS per group, for each grouping in `keys` (per episode; one pass)."""
    groups: list[dict[str, list[int]]] = [{} for _ in keys]  # group -> [successes, episodes]
    for r in scored(records):
        assert r.verdict is not None
        for grouping, key in zip(groups, keys, strict=True):
            total = grouping.setdefault(key(r), [0, 0])
            total[0] += r.verdict.score
            total[1] += 1
    return [{k: Rate(successes, n) for k, (successes, n) in grouping.items()} for grouping in groups]


def ecs(records: Iterable[Episode]) -> Rate:
    s = [r.verdict.score for r in scored(records) if r.verdict is not None]
    return Rate(sum(s), len(s))


def macro(rates: dict[str, Rate], keys: Iterable[str]) -> float | None:
    values = [rates[k].value for k in keys if k in rates and rates[k].value is not None]
    return sum(v for v in values if v is not None) / len(values) if values else None


def summary(records: Iterable[Episode]) -> dict[str, object]:
    """ECS per episode overall, per protocol and per domain, with their macro means (one pass)."""
    overall, by_protocol, by_domain = ecs_by(records, lambda r: "all", lambda r: str(r.protocol), lambda r: r.domain)
    return {
        "ecs": overall.get("all", Rate(0, 0)),
        "by_protocol": by_protocol,
        "by_domain": by_domain,
        "protocol_macro": macro(by_protocol, PROTOCOL_NAMES),
        "domain_macro": macro(by_domain, DOMAIN_ORDER),
    }


def domain_order(domains: Iterable[str]) -> list[str]:
    """The six SPEC domains first, in their fixed order, then any other domain alphabetically."""
    present = set(domains)
    return [d for d in DOMAIN_ORDER if d in present] + sorted(present - set(DOMAIN_ORDER))


# ---------------------------------------------------------------------------- the main table


@dataclass(frozen=True)
class MainRow:
    """One configuration's row of the main table (original condition)."""

    ecs: Rate
    by_protocol: dict[str, Rate]
    by_domain: dict[str, Rate]
    protocol_macro: float | None
    domain_macro: float | None


def case_rates(records: Iterable[Episode], *keys: Callable[[Episode], str]) -> list[dict[str, Rate]]:
    """ECS per group, for each grouping in `keys`, with the case as the unit: each case's
    repetitions are averaged first, so a rate is the mean of case means - the same quantity the case
    bootstrap resamples. One pass over the episodes."""
    totals: dict[str, list[int]] = {}  # case -> [score sum, episodes]
    groups_of: dict[str, tuple[str, ...]] = {}
    for r in scored(records):
        assert r.verdict is not None
        total = totals.setdefault(r.case_id, [0, 0])
        total[0] += r.verdict.score
        total[1] += 1
        groups_of[r.case_id] = tuple(key(r) for key in keys)
    out = []
    for i in range(len(keys)):
        sums: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for case_id, (score, n) in totals.items():
            sums[groups_of[case_id][i]] += score / n
            counts[groups_of[case_id][i]] += 1
        out.append({g: Rate(int(v) if float(v).is_integer() else v, counts[g]) for g, v in sums.items()})
    return out


def main_row(records: Iterable[Episode]) -> MainRow:
    """The main table's row: every rate per case (repetitions averaged within a case, SPEC §6)."""
    by_protocol, by_domain, overall = case_rates(
        records, lambda r: r.protocol.value, lambda r: r.domain, lambda r: "all"
    )
    return MainRow(
        ecs=overall.get("all", Rate(0, 0)),
        by_protocol=by_protocol,
        by_domain=by_domain,
        protocol_macro=macro(by_protocol, PROTOCOL_NAMES),
        domain_macro=macro(by_domain, domain_order(by_domain)),
    )


def best_marks(values: Sequence[float | None], higher_is_better: bool = True, decimals: int = 1) -> list[str | None]:
    """'best' / 'second' per value (ties share a mark; compared as displayed, in percent with
    `decimals`). Marks need at least two values; 'second' needs at least three."""
    shown = [None if v is None else round(100 * v, decimals) for v in values]
    distinct = sorted({v for v in shown if v is not None}, reverse=higher_is_better)
    if sum(v is not None for v in shown) < 2 or not distinct:
        return [None] * len(values)
    marks: list[str | None] = []
    for v in shown:
        if v is None:
            marks.append(None)
        elif v == distinct[0] and len(distinct) > 1:
            marks.append("best")
        elif len(distinct) > 1 and v == distinct[1] and sum(x is not None for x in shown) >= 3:
            marks.append("second")
        else:
            marks.append(None)
    return marks


# ---------------------------------------------------------------------------- failure modes


def failure_mode_shares(records: Iterable[Episode]) -> dict[str, dict[str, Rate]]:
    """Per protocol: share of all its scored episodes in 'success' and in each failure mode.
    The shares of one protocol add up to 1. Labels outside the taxonomy are kept, after it."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in scored(records):
        assert r.verdict is not None
        label = SUCCESS if r.verdict.score == 1 else (r.verdict.failure_mode or "other")
        counts[r.protocol.value][label] += 1
    out: dict[str, dict[str, Rate]] = {}
    for protocol in [p for p in PROTOCOL_NAMES if p in counts]:
        n = sum(counts[protocol].values())
        labels = [SUCCESS, *FAILURE_MODES.get(protocol, ())]
        labels += sorted(set(counts[protocol]) - set(labels))
        out[protocol] = {label: Rate(counts[protocol].get(label, 0), n) for label in labels}
    return out


# ---------------------------------------------------------------------------- evidence metrics


def verdicts_of(records: Iterable[Episode], *protocols: str) -> Iterator[Verdict | VerdictRow]:
    """The verdicts of the scored episodes of these protocols."""
    return (r.verdict for r in scored(records) if r.protocol.value in protocols and r.verdict is not None)


def share(pairs: Iterable[tuple[bool, bool]]) -> Rate:
    """Rate of `hit` among the (counted, hit) pairs that are counted."""
    hits = n = 0
    for counted, hit in pairs:
        n += counted
        hits += counted and hit
    return Rate(hits, n)


def premature_action_rate(records: Iterable[Episode]) -> Rate:
    """PAR: among V1 episodes with at least one action attempt, the share whose first attempt came
    before its evidence was complete."""
    return share(
        (v.diagnostics.action_attempts > 0, v.diagnostics.evidence_complete_before_first_action is False)
        for v in verdicts_of(records, "V1")
    )


def conditional_action_success(records: Iterable[Episode]) -> Rate:
    """CAS: among V1 episodes whose evidence was complete before the first attempt, the share that
    succeeded."""
    return share(
        (
            v.diagnostics.action_attempts > 0 and v.diagnostics.evidence_complete_before_first_action is True,
            v.score == 1,
        )
        for v in verdicts_of(records, "V1")
    )


def blind_stop_rate(records: Iterable[Episode]) -> Rate:
    """BSR: among V0 episodes that ended in a stop (a submitted outcome), the share whose required
    reads were not all established at the stop."""
    return share(
        (v.diagnostics.submitted is not None, not v.diagnostics.evidence_complete_at_end)
        for v in verdicts_of(records, "V0")
    )


def investigation_completion(records: Iterable[Episode]) -> Rate:
    """Share of V0-V3 episodes whose required evidence was all established by the end."""
    return share((True, v.diagnostics.evidence_complete_at_end) for v in verdicts_of(records, *INTERACTIVE_NAMES))


# ---------------------------------------------------------------------------- run coverage


@dataclass(frozen=True)
class RunCoverage:
    completed: int
    planned: int | None
    missing: dict[str, int] = field(default_factory=dict)

    @property
    def share(self) -> float | None:
        return self.completed / self.planned if self.planned else None


def missing_reason(record: Episode) -> str:
    """The reason class of a missing episode: its missing_reason before the first ':'."""
    return (record.missing_reason or "unknown").split(":")[0].strip() or "unknown"


def run_coverage(records: Iterable[Episode], planned: int | None) -> RunCoverage:
    """Completed / planned episodes, and missing episodes counted by reason class."""
    completed = 0
    missing: dict[str, int] = defaultdict(int)
    for r in records:
        if r.status == "completed":
            completed += 1
        else:
            missing[missing_reason(r)] += 1
    return RunCoverage(completed, planned, dict(sorted(missing.items())))


# ---------------------------------------------------------------------------- repetitions


def case_scores(records: Iterable[Episode]) -> dict[str, float]:
    """Each case's mean score over its scored episodes (repetitions pooled)."""
    totals: dict[str, list[int]] = {}
    for r in scored(records):
        assert r.verdict is not None
        total = totals.setdefault(r.case_id, [0, 0])
        total[0] += r.verdict.score
        total[1] += 1
    return {k: score / n for k, (score, n) in totals.items()}


def replicate_scores(records: Iterable[Episode]) -> dict[str, int]:
    """Case -> score of one replicate's scored episodes (one episode per case)."""
    return {r.case_id: r.verdict.score for r in scored(records) if r.verdict is not None}


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """Probability that k repetitions drawn without replacement from `trials` all succeed,
    C(successes, k) / C(trials, k) (the unbiased pass^k estimator; = all-succeed when k = trials)."""
    if not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 1 <= k <= trials (k={k}, trials={trials})")
    return math.comb(successes, k) / math.comb(trials, k)


@dataclass(frozen=True)
class Repetitions:
    runs: list[tuple[str, float]]  # (replicate name, ECS on the common cases)
    mean: float | None
    sd: float | None  # sample SD (n - 1); None with fewer than two runs
    pass_k: dict[int, float]  # k -> pass^k averaged over the common cases with at least k repetitions
    cases: int  # cases every run covered


def repetitions(replicates: Sequence[tuple[str, Mapping[str, int]]]) -> Repetitions:
    """Per-run ECS, mean ± sample SD over runs, and pass^k for k = 1..max repetitions of a case,
    all on the cases that every run covered (runs of different case sets are not comparable).
    `replicates`: (name, case -> score) of each run (`replicate_scores`)."""
    runs = [(name, scores) for name, scores in replicates if scores]
    common = set.intersection(*(set(scores) for _, scores in runs)) if runs else set()
    per_run = []
    trials: dict[str, list[int]] = defaultdict(list)
    for name, scores in runs:
        kept = [score for case_id, score in scores.items() if case_id in common]
        per_run.append((name, sum(kept) / len(kept)))
        for case_id in common:
            trials[case_id].append(scores[case_id])
    values = [v for _, v in per_run]
    mean = statistics.fmean(values) if values else None
    sd = statistics.stdev(values) if len(values) >= 2 else None
    max_k = max((len(v) for v in trials.values()), default=0)
    pass_k: dict[int, float] = {}
    for k in range(1, max_k + 1):
        eligible = [v for v in trials.values() if len(v) >= k]
        pass_k[k] = statistics.fmean(pass_hat_k(sum(v), len(v), k) for v in eligible)
    return Repetitions(per_run, mean, sd, pass_k, len(common))


# ---------------------------------------------------------------------------- interventions


# ---------------------------------------------------------------------------- cost and effort
