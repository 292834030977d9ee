"""Episodes as rows: a record reduced to what summaries and the analysis read, in slotted objects
(a run's closing summary and the report keep rows, never whole records). A pydantic record with its
trajectory, verdict and diagnostics costs ~7 KB in memory; a row ~1 KB, and equal steps and model
turns are shared between rows. The analysis reads rows the way it would read records (the same
attribute names), so its functions take either."""

from __future__ import annotations

import marshal
from dataclasses import dataclass
from typing import Any

from ..core.model import Protocol
from ..core.trajectory import Step
from ..core.verdict import Finding, OutcomeCode, Verdict
from .records import EpisodeKey, EpisodeRecord, ModelTurn

_STEPS: dict[tuple[int, str, str, Any], Step] = {}
_TURNS = {flag: ModelTurn(text_tool_call=flag) for flag in (False, True)}
MAX_SHARED_STEPS = 100_000  # distinct (place, kind, tool, status): a few thousand in the suite's runs
MAX_SHARED_FINDINGS = 10_000  # a finding names values of its episode: fewer repeat
_FINDINGS: dict[tuple[Any, ...], Finding] = {}
_PROTOCOLS = {p.value: p for p in Protocol}
_OUTCOMES = {o.value: o for o in OutcomeCode}


@dataclass(frozen=True, slots=True)
class GateRow:
    action: str
    step: int | None
    executed: bool
    established: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DiagnosticsRow:
    first_action_step: int | None
    evidence_complete_before_first_action: bool | None
    coverage: tuple[float, ...]
    evidence_complete_at_end: bool
    required_reads: int
    info_calls: int
    invalid_calls: int
    action_attempts: int
    actions_completed: int
    actions_expected: int
    gates: tuple[GateRow, ...]
    submitted: str | None
    tools_queried: tuple[str, ...]
    harmful_action: bool


@dataclass(frozen=True, slots=True)
class VerdictRow:
    case_id: str
    protocol: Protocol
    score: int
    outcome: OutcomeCode
    failure_mode: str | None
    findings: tuple[Finding, ...]
    diagnostics: DiagnosticsRow


@dataclass(frozen=True, slots=True)
class TrajectoryRow:
    steps: tuple[Step, ...]  # each as its place, kind, tool and status (shared: `bare_step`)
    end_reason: str


@dataclass(frozen=True, slots=True)
class EpisodeRow:
    case_id: str
    protocol: Protocol
    domain: str
    family: str
    agent: str
    harness: str
    model: str | None
    condition: str
    repetition: int
    seed: int
    status: str
    missing_reason: str | None
    trajectory: TrajectoryRow | None
    verdict: VerdictRow | None
    duration_s: float
    usage: dict[str, int]
    transcript: tuple[ModelTurn, ...] | None  # each reply as its text-tool-call flag (shared)
    line: int = 0  # the record's line in its episodes file (0: not read from one)

    @property
    def key(self) -> EpisodeKey:
        return (self.case_id, self.condition, self.repetition)


Episode = EpisodeRecord | EpisodeRow  # what the analysis functions read: a stored record or a report's row


def bare_step(step: Step) -> Step:
    """A step as its place, kind, tool and observation status; equal ones are one shared (frozen) object."""
    status = step.observation.get("status")
    return _bare(step.index, step.kind, step.tool, status if isinstance(status, str | None) else repr(status))


def _bare(index: int, kind: str, tool: str, status: str | None) -> Step:
    key = (index, kind, tool, status)
    bare = _STEPS.get(key)
    if bare is None:
        bare = Step.model_construct(index=index, kind=kind, tool=tool, arguments={}, observation={"status": status})
        if len(_STEPS) < MAX_SHARED_STEPS:
            _STEPS[key] = bare
    return bare


def verdict_row(verdict: Verdict) -> VerdictRow:
    d = verdict.diagnostics
    gates = tuple(GateRow(g.action, g.step, g.executed, tuple(g.established), tuple(g.missing)) for g in d.gates)
    diagnostics = DiagnosticsRow(
        d.first_action_step,
        d.evidence_complete_before_first_action,
        tuple(d.coverage),
        d.evidence_complete_at_end,
        d.required_reads,
        d.info_calls,
        d.invalid_calls,
        d.action_attempts,
        d.actions_completed,
        d.actions_expected,
        gates,
        d.submitted,
        tuple(d.tools_queried),
        d.harmful_action,
    )
    return VerdictRow(
        verdict.case_id,
        verdict.protocol,
        verdict.score,
        verdict.outcome,
        verdict.failure_mode,
        tuple(verdict.findings),
        diagnostics,
    )


def episode_row(record: EpisodeRecord, line: int = 0) -> EpisodeRow:
    """A verified record as the report keeps it, with its line in the episodes file (its steps'
    text is read back from there when shown: `runs.Run.whole`)."""
    trajectory = None
    if record.trajectory is not None:
        steps = tuple(bare_step(s) for s in record.trajectory.steps)
        trajectory = TrajectoryRow(steps, record.trajectory.end_reason)
    transcript = None
    if record.transcript is not None:
        transcript = tuple(_TURNS[bool(turn.text_tool_call)] for turn in record.transcript)
    return EpisodeRow(
        case_id=record.case_id,
        protocol=record.protocol,
        domain=record.domain,
        family=record.family,
        agent=record.agent,
        harness=record.harness,
        model=record.model,
        condition=record.condition,
        repetition=record.repetition,
        seed=record.seed,
        status=record.status,
        missing_reason=record.missing_reason,
        trajectory=trajectory,
        verdict=verdict_row(record.verdict) if record.verdict is not None else None,
        duration_s=record.duration_s,
        usage=dict(record.usage),
        transcript=transcript,
        line=line,
    )


# ------------------------------------------------------------------ rows as bytes (rowstore spill)


def encode_row(row: EpisodeRow) -> bytes:
    """A row as plain values (`marshal`): what `rowstore.RowStore` writes for a row past its budget.
    Several times faster to read back than a pickled row, whose every step and finding is an object."""
    trajectory = None
    if row.trajectory is not None:
        steps = tuple((s.index, s.kind, s.tool, s.observation.get("status")) for s in row.trajectory.steps)
        trajectory = (steps, row.trajectory.end_reason)
    verdict = None
    if row.verdict is not None:
        v, d = row.verdict, row.verdict.diagnostics
        findings = tuple((f.code.value, f.step, f.action, f.check, f.detail) for f in v.findings)
        gates = tuple((g.action, g.step, g.executed, g.established, g.missing) for g in d.gates)
        diagnostics = (d.first_action_step, d.evidence_complete_before_first_action, d.coverage,
                       d.evidence_complete_at_end, d.required_reads, d.info_calls, d.invalid_calls,
                       d.action_attempts, d.actions_completed, d.actions_expected, gates, d.submitted,
                       d.tools_queried, d.harmful_action)  # fmt: skip
        verdict = (v.case_id, v.protocol.value, v.score, v.outcome.value, v.failure_mode, findings, diagnostics)
    transcript = None if row.transcript is None else tuple(t.text_tool_call for t in row.transcript)
    return marshal.dumps(
        (
            row.case_id,
            row.protocol.value,
            row.domain,
            row.family,
            row.agent,
            row.harness,
            row.model,
            row.condition,
            row.repetition,
            row.seed,
            row.status,
            row.missing_reason,
            trajectory,
            verdict,
            row.duration_s,
            row.usage,
            transcript,
            row.line,
        )
    )


def decode_row(data: bytes) -> EpisodeRow:
    """The row `encode_row` wrote (steps and model turns shared as `episode_row` shares them)."""
    (case_id, protocol, domain, family, agent, harness, model, condition, repetition, seed, status, missing_reason,
     trajectory, verdict, duration_s, usage, transcript, line) = marshal.loads(data)  # fmt: skip
    return EpisodeRow(
        case_id,
        _PROTOCOLS[protocol],
        domain,
        family,
        agent,
        harness,
        model,
        condition,
        repetition,
        seed,
        status,
        missing_reason,
        None if trajectory is None else TrajectoryRow(tuple(_bare(*s) for s in trajectory[0]), trajectory[1]),
        None if verdict is None else _decode_verdict(*verdict),
        duration_s,
        usage,
        None if transcript is None else tuple(_TURNS[flag] for flag in transcript),
        line,
    )


def _decode_verdict(
    case_id: str,
    protocol: str,
    score: int,
    outcome: str,
    failure_mode: str | None,
    findings: tuple[tuple[Any, ...], ...],
    diagnostics: tuple[Any, ...],
) -> VerdictRow:
    (first_action, complete_before, coverage, complete_at_end, required, info, invalid, attempts, completed,
     expected, gates, submitted, queried, harmful) = diagnostics  # fmt: skip
    return VerdictRow(
        case_id,
        _PROTOCOLS[protocol],
        score,
        _OUTCOMES[outcome],
        failure_mode,
        tuple(_finding(*f) for f in findings),
        DiagnosticsRow(
            first_action,
            complete_before,
            coverage,
            complete_at_end,
            required,
            info,
            invalid,
            attempts,
            completed,
            expected,
            tuple(GateRow(*g) for g in gates),
            submitted,
            queried,
            harmful,
        ),
    )


def _finding(*values: Any) -> Finding:
    """A finding from its values; equal ones are one shared object (repetitions repeat findings)."""
    found = _FINDINGS.get(values)
    if found is None:
        code, step, action, check, detail = values
        found = Finding.model_construct(code=_OUTCOMES[code], step=step, action=action, check=check, detail=detail)
        if len(_FINDINGS) < MAX_SHARED_FINDINGS:
            _FINDINGS[values] = found
    return found
