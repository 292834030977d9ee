"""The label oracle: SPEC §4 re-stated over the played observations and the world's record versions.

It shares no code with the ledger or the evaluator, so a disagreement between the two is reported,
never hidden.

A requirement is established before step t iff a step s < t returned the exact record (type:id)
with the field matching, from an allowed source (an information tool named in `via`, or any if
`via` is unset; the `result_of` action's own applied step; the task context only if `via` names
"context"), and - unless the requirement waives freshness - the world still holds that record at
the version observed (versions only grow).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.model import ArgRef, Case, DynamicRef, Protocol, Record, Requirement
from ..core.tool_spec import InfoEffect, ToolSpec
from ..core.trajectory import Step
from ..core.values import compare
from .calls import Played

_ABSENT = object()


def returned(observation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if isinstance(observation.get("record"), Mapping):
        return [observation["record"]]
    records = observation.get("records")
    return [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []


def _field_value(record: Mapping[str, Any], name: str) -> Any:
    if name in ("id", "version"):  # a record seen shows its id and version
        return record.get(name, _ABSENT)
    return (record.get("fields") or {}).get(name, _ABSENT)


def _resolved_ref(case: Case, req: Requirement, results: Mapping[str, Mapping[str, Any]]) -> str | None:
    if isinstance(req.ref, DynamicRef):
        produced = results.get(req.ref.id.result_of, {}).get(req.ref.id.key)
        return None if produced is None else f"{req.ref.type}:{produced}"
    if isinstance(req.ref, ArgRef):  # the record the reference solution's call named
        ref = req.ref
        step = next((s for s in case.reference if s.action_id == ref.action), None)
        chosen = step.arguments.get(ref.arg) if step else None
        return None if chosen is None else f"{ref.type}:{chosen}"
    return req.ref


def _lowered(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _would_list(record: Record, tool: ToolSpec, args: Mapping[str, Any]) -> bool:
    """Whether `tool`, called with `args`, searches for records like `record` (SPEC §3: an absent
    record is found absent by the read that would have returned it)."""
    effect = tool.effect
    if not isinstance(effect, InfoEffect) or effect.op != "search":
        return False
    if record.type not in (effect.record_type, *effect.other_types):
        return False
    for param, field in effect.filters.items():
        wanted, held = _lowered(args.get(param)), record.fields.get(field)
        if wanted is None:
            continue
        values = held if isinstance(held, list) else [held]
        if effect.match == "contains" and isinstance(wanted, str):
            if not any(isinstance(v, str) and wanted in v.lower() for v in values):
                return False
        elif not any(_lowered(v) == wanted or (compare(v, "eq", wanted) and not isinstance(v, str)) for v in values):
            return False
    return True


def _finds_absent(case: Case, step: Step, ref: str) -> bool:
    """A read that shows `ref` missing: a get of it answered NOT_FOUND, or a complete search (every
    match on one page) that would have listed the case's absent record."""
    tool = case.tool(step.tool)
    args = step.arguments if isinstance(step.arguments, dict) else {}
    if tool is None or not isinstance(tool.effect, InfoEffect):
        return False
    if tool.effect.op == "get":
        error = step.observation.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        named = f"{tool.effect.record_type}:{args.get(tool.effect.id_param or '')}"
        return step.observation.get("status") == "error" and code == "NOT_FOUND" and named == ref
    obs = step.observation
    listed = isinstance(obs.get("records"), list) and not obs.get("truncated") and obs.get("pages", 1) == 1
    return (
        obs.get("status") == "ok" and listed and any(r.ref == ref and _would_list(r, tool, args) for r in case.absent)
    )


def establishers(case: Case, played: Played, req: Requirement, before: int) -> list[int]:
    """The steps (-1: the task context) that establish `req` before step `before`."""
    ref = _resolved_ref(case, req, played.results)
    if ref is None:
        return []
    if req.operator == "absent":
        return [
            s.index
            for s in played.trajectory.steps[:before]
            if s.kind == "information" and (req.via is None or s.tool in req.via) and _finds_absent(case, s, ref)
        ]
    current = played.versions[min(before, len(played.versions) - 1)].get(ref)

    def holds(value: Any, version: Any) -> bool:
        if value is _ABSENT or not compare(value, req.operator, req.value):
            return False
        return not req.fresh or version == current

    found: list[int] = []
    if req.via is not None and "context" in req.via:
        for fact in case.context:
            if fact.ref == ref and fact.field == req.field and holds(fact.value, played.versions[0].get(ref)):
                found.append(-1)
                break
    result_step = played.action_steps.get(req.result_of) if req.result_of else None
    for step in played.trajectory.steps[:before]:
        status = step.observation.get("status")
        if step.kind == "information":
            if status != "ok" or (req.via is not None and step.tool not in req.via):
                continue
        elif not (step.kind == "consequential" and status == "applied" and step.index == result_step):
            continue
        for record in returned(step.observation):
            if f"{record.get('type')}:{record.get('id')}" == ref and holds(
                _field_value(record, req.field), record.get("version")
            ):
                found.append(step.index)
                break
    return found


def _gates(case: Case, played: Played) -> tuple[list[tuple[str, int, list[str]]], list[str]]:
    steps = played.trajectory.steps
    if case.protocol == Protocol.LEGACY:
        return [], []
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        end = next((s.index for s in steps if s.kind == "submit" and s.observation.get("status") == "ok"), len(steps))
        return [("stop", end, list(case.stop.required_reads))], []
    gates, not_run = [], []
    for action in case.expected_actions:
        if action.id in played.action_steps:
            gates.append((action.id, played.action_steps[action.id], list(action.requires)))
        else:
            not_run.append(f"{action.id} not executed")
    return gates, not_run


def oracle_missing(case: Case, played: Played) -> list[str]:
    """What the oracle finds unestablished at the gates of the played trajectory (empty: complete)."""
    gates, missing = _gates(case, played)
    for name, step, req_ids in gates:
        missing += [f"{name}:{r}" for r in req_ids if not establishers(case, played, case.requirement(r), step)]
    return missing


def evidence_map(case: Case, played: Played) -> dict[str, dict[str, list[int]]]:
    """gate -> requirement -> the steps establishing it there."""
    gates, _ = _gates(case, played)
    return {
        name: {r: establishers(case, played, case.requirement(r), step) for r in req_ids}
        for name, step, req_ids in gates
    }
