"""Human-readable rendering of a trajectory and its verdict (SPEC §5), used by reports and scorers.

TRAJECTORY EXCERPT
[0] get_charge(charge_id='CH-1') -> ok charge:CH-1 v1 {amount: 49.99, ...}
EVALUATOR FINDINGS
score=0; outcome=UNSUPPORTED_ACTION; completed=1/2
[Support check] step 1 a1: ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .trajectory import Step, Trajectory
from .verdict import Finding, OutcomeCode

MAX_FIELDS = 6


def _value(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _record(record: dict[str, Any]) -> str:
    fields = record.get("fields") or {}
    shown = ", ".join(f"{k}: {_value(v)}" for k, v in list(fields.items())[:MAX_FIELDS])
    more = ", ..." if len(fields) > MAX_FIELDS else ""
    return f"{record.get('type')}:{record.get('id')} v{record.get('version')} {{{shown}{more}}}"


def render_observation(observation: dict[str, Any]) -> str:
    status = observation.get("status")
    if status == "ok" and "record" in observation:
        return f"ok {_record(observation['record'])}"
    if status == "ok" and "records" in observation:
        records = observation["records"]
        return f"ok {observation.get('count', len(records))} result(s): " + "; ".join(
            f"{r.get('type')}:{r.get('id')}" for r in records[:5]
        )
    if status == "applied":
        result = ", ".join(f"{k}={v}" for k, v in (observation.get("result") or {}).items())
        return f"applied {result}".strip()
    if status == "rejected":
        return f"rejected {observation.get('code')}: {observation.get('message', '')}"
    if status == "error":
        err = observation.get("error") or {}
        return f"error {err.get('code')}: {err.get('message', '')}"
    return str(observation.get("message") or status)


def render_step(step: Step) -> str:
    if isinstance(step.arguments, dict):
        args = ", ".join(f"{k}={_value(v)}" for k, v in step.arguments.items())
    else:
        args = _value(step.arguments)
    return f"[{step.index}] {step.tool}({args}) -> {render_observation(step.observation)}"


def render_excerpt(trajectory: Trajectory, limit: int = 40) -> str:
    steps = trajectory.steps
    lines = ["TRAJECTORY EXCERPT"]
    lines += [render_step(s) for s in steps[:limit]]
    if len(steps) > limit:
        lines.append(f"... {len(steps) - limit} more step(s)")
    lines.append(f"(end: {trajectory.end_reason})")
    return "\n".join(lines)


class _Counts(Protocol):
    @property
    def actions_expected(self) -> int: ...

    @property
    def actions_completed(self) -> int: ...


class VerdictView(Protocol):
    """What rendering reads of a verdict (a `Verdict`, or a report's `rows.VerdictRow`)."""

    @property
    def score(self) -> int: ...

    @property
    def outcome(self) -> OutcomeCode: ...

    @property
    def findings(self) -> Sequence[Finding]: ...

    @property
    def diagnostics(self) -> _Counts: ...


def render_findings(verdict: VerdictView) -> str:
    d = verdict.diagnostics
    head = f"score={verdict.score}; outcome={verdict.outcome.value}"
    if d.actions_expected:
        head += f"; completed={d.actions_completed}/{d.actions_expected}"
    lines = ["EVALUATOR FINDINGS", head]
    for f in verdict.findings:
        where = f"step {f.step}" if f.step is not None else "episode"
        action = f" {f.action}" if f.action else ""
        lines.append(f"[{f.check}] {where}{action}: {f.detail}")
    return "\n".join(lines)


def render_episode(trajectory: Trajectory, verdict: VerdictView) -> str:
    return render_excerpt(trajectory) + "\n" + render_findings(verdict)
