"""What an episode cost (SPEC §6): decision coverage and its distribution by case, information
calls and their cost per protocol, tokens and model calls from the recorded usage. Plain records
in, plain numbers out, like `metrics`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..runs.rows import Episode
from .metrics import INTERACTIVE_NAMES, scored, verdicts_of


def decision_coverage(record: Episode) -> list[float]:
    """An episode's required-read coverage at its decision points: the V0 stop, the V1 first attempt
    (or the end, without one), and each V2/V3 action gate the episode reached (a gate never reached
    has no coverage to measure)."""
    assert record.verdict is not None
    d = record.verdict.diagnostics
    if record.protocol.value in ("V2", "V3"):
        return [
            1.0 if not (g.established or g.missing) else len(g.established) / (len(g.established) + len(g.missing))
            for g in d.gates
            if g.step is not None
        ]
    return list(d.coverage)


def coverage_cdf_by_case(records: Iterable[Episode], thresholds: Sequence[float]) -> dict[str, list[float]]:
    """STUDY F-effort (B), case-weighted: per case and threshold y, the share of its decision points
    with coverage <= y (an episode's gates share its weight; the case's episodes are averaged)."""
    means = _CaseMeans()
    for r in scored(records):
        points = decision_coverage(r)
        if points:
            means.add(r.case_id, [sum(v <= y + 1e-12 for v in points) / len(points) for y in thresholds])
    return means.result()


def effort_by_case(records: Iterable[Episode], budgets: Sequence[float]) -> dict[str, list[float]]:
    """STUDY F-effort (A): per case and budget x, the share of its episodes that completed the
    investigation with a normalised query cost (information calls / required reads) <= x. Episodes of
    cases without required reads are left out."""
    means = _CaseMeans()
    for r in scored(records):
        assert r.verdict is not None
        d = r.verdict.diagnostics
        if d.required_reads > 0:
            cost = d.info_calls / d.required_reads
            means.add(r.case_id, [float(d.evidence_complete_at_end and cost <= x + 1e-12) for x in budgets])
    return means.result()


class _CaseMeans:
    """Per case, the running mean of a vector over its episodes (no episode's vector is kept)."""

    def __init__(self) -> None:
        self.sums: dict[str, list[float]] = {}
        self.counts: dict[str, int] = defaultdict(int)

    def add(self, case_id: str, vector: Sequence[float]) -> None:
        total = self.sums.setdefault(case_id, [0.0] * len(vector))
        for i, v in enumerate(vector):
            total[i] += v
        self.counts[case_id] += 1

    def result(self) -> dict[str, list[float]]:
        return {k: [v / self.counts[k] for v in total] for k, total in self.sums.items()}


def query_costs(records: Iterable[Episode]) -> list[float]:
    """Normalised query cost per V0-V3 episode: information calls / required reads (episodes
    without required reads are left out)."""
    costs = []
    for v in verdicts_of(records, *INTERACTIVE_NAMES):
        d = v.diagnostics
        if d.required_reads > 0:
            costs.append(d.info_calls / d.required_reads)
    return sorted(costs)


def ecdf(values: Sequence[float]) -> tuple[list[float], list[float]]:
    """Step points (x, F(x)) of the empirical CDF of `values`."""
    xs = sorted(values)
    n = len(xs)
    out_x: list[float] = []
    out_y: list[float] = []
    for i, x in enumerate(xs, start=1):
        if out_x and out_x[-1] == x:
            out_y[-1] = i / n
        else:
            out_x.append(x)
            out_y.append(i / n)
    return out_x, out_y


TOKEN_KINDS = ("input_tokens", "output_tokens")


@dataclass(frozen=True)
class Cost:
    """What a set of episodes cost: played episodes (completed or missing: both were paid for),
    tokens and model calls from the recorded usage and transcripts, wall time from duration_s.
    Per-episode means are over the episodes that recorded the quantity (None when none did)."""

    episodes: int
    tokens: dict[str, int]
    tokens_per_episode: dict[str, float | None]
    model_calls_per_episode: float | None
    seconds_per_episode: float | None
    seconds: float


def cost(records: Iterable[Episode]) -> Cost:
    total = _CostSum()
    for r in records:
        total.add(r)
    return total.result()


def costs(records: Iterable[Episode], key: Callable[[Episode], str]) -> tuple[Cost, dict[str, Cost]]:
    """What the episodes cost in all and per group of `key`, in one pass."""
    total = _CostSum()
    groups: dict[str, _CostSum] = {}
    for r in records:
        total.add(r)
        groups.setdefault(key(r), _CostSum()).add(r)
    return total.result(), {k: group.result() for k, group in groups.items()}


class _CostSum:
    def __init__(self) -> None:
        self.episodes = self.with_usage = self.with_transcript = self.calls = 0
        self.seconds = 0.0
        self.tokens = dict.fromkeys(TOKEN_KINDS, 0)

    def add(self, r: Episode) -> None:
        self.episodes += 1
        self.seconds += r.duration_s
        if r.usage:
            self.with_usage += 1
            for kind in TOKEN_KINDS:
                self.tokens[kind] += r.usage.get(kind, 0)
        if r.transcript is not None:
            self.with_transcript += 1
            self.calls += len(r.transcript)

    def result(self) -> Cost:
        per_episode = {kind: self.tokens[kind] / self.with_usage if self.with_usage else None for kind in TOKEN_KINDS}
        return Cost(
            self.episodes,
            self.tokens,
            per_episode,
            self.calls / self.with_transcript if self.with_transcript else None,
            self.seconds / self.episodes if self.episodes else None,
            self.seconds,
        )


def mean_over(values: Mapping[str, float], cases: Iterable[str]) -> float | None:
    """The mean of `values` over `cases` (None for no case)."""
    chosen = [values[k] for k in cases]
    return sum(chosen) / len(chosen) if chosen else None
