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

from ..model import ArgRef, Case, DynamicRef, Protocol, Requirement
from ..values import compare
from .calls import Played

_ABSENT = object()


def returned(observation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if isinstance(observation.get("record"), Mapping):
        return [observation["record"]]
    records = observation.get("records")
    return [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []


def _field_value(record: Mapping[str, Any], name: str) -> Any:
    if name == "version":
        return record.get("version", _ABSENT)
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


def establishers(case: Case, played: Played, req: Requirement, before: int) -> list[int]:
    """The steps (-1: the task context) that establish `req` before step `before`."""
    ref = _resolved_ref(case, req, played.results)
    if ref is None:
        return []
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
