"""The label oracle's evidence half: SPEC §4 re-stated over the played observations.

It shares no code with the ledger, the world or the evaluator (a test holds its imports): values
compare by its own rule (`oracle_values`), and the record versions freshness depends on are
replayed here from what the trajectory shows - the case's records at their versions, every record
an applied action returned (changed or created), and the case's world events (one version each,
after the call that triggers them).

A requirement is established before step t iff a step s < t returned the exact record (type:id)
with the field matching, from an allowed source (an information tool named in `via`, or any if
`via` is unset; the `result_of` action's own applied step; the task context only if `via` names
"context"), and - unless the requirement waives freshness - the record is still at the version
observed. The record a requirement names may be bound to an earlier action's result (`DynamicRef`)
or to the record the agent's own call named (`ArgRef`: the played call's argument, not the
reference's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.model import ArgRef, Case, DynamicRef, Protocol, Record, Requirement, WorldEvent
from ..core.tool_spec import InfoEffect, ToolSpec
from ..core.trajectory import Step
from .oracle_values import arguments, holds, record_id, same
from .played import Played

_ABSENT = object()


def returned(observation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The records an observation carries: a get's `record`, a search's or an action's `records`."""
    if isinstance(observation.get("record"), Mapping):
        return [observation["record"]]
    records = observation.get("records")
    return [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []


def _ref(record: Mapping[str, Any]) -> str:
    return f"{record.get('type')}:{record.get('id')}"


def _event_step(event: WorldEvent, steps: Sequence[Step]) -> int | None:
    """The step after which a world event happens (None: not within these steps)."""
    if event.after_calls is not None:
        return event.after_calls - 1 if len(steps) >= event.after_calls else None
    return next(
        (
            s.index
            for s in steps
            if s.kind == "information"
            and s.observation.get("status") == "ok"
            and any(_ref(r) == event.ref for r in returned(s.observation))
        ),
        None,
    )


def record_versions(case: Case, steps: Sequence[Step]) -> list[dict[str, int]]:
    """versions[t]: every record's version just before step t (t = 0 .. len(steps))."""
    current = {r.ref: r.version for r in case.records}
    events: dict[int, list[WorldEvent]] = {}
    for event in case.events:
        at = _event_step(event, steps)
        if at is not None:
            events.setdefault(at, []).append(event)
    out = [dict(current)]
    for step in steps:
        if step.kind == "consequential" and step.observation.get("status") == "applied":
            for record in returned(step.observation):
                if isinstance(record.get("version"), int):
                    current[_ref(record)] = record["version"]
        for event in events.get(step.index, []):
            if event.ref in current:
                current[event.ref] += 1
        out.append(dict(current))
    return out


def action_result(played: Played, action_id: str) -> dict[str, Any]:
    """What the tagged call of `action_id` returned when it was applied ({} if it was not)."""
    at = played.action_steps.get(action_id)
    result = played.trajectory.steps[at].observation.get("result") if at is not None else None
    return dict(result) if isinstance(result, Mapping) else {}


def action_arguments(played: Played, action_id: str) -> dict[str, Any] | None:
    """The arguments of the applied tagged call of `action_id` (None if it was not applied)."""
    at = played.action_steps.get(action_id)
    return None if at is None else arguments(played.trajectory.steps[at].arguments)


def resolved_ref(req: Requirement, played: Played) -> str | None:
    """The record a requirement is about, as this trajectory binds it."""
    if isinstance(req.ref, DynamicRef):
        produced = action_result(played, req.ref.id.result_of).get(req.ref.id.key)
        return None if produced is None else f"{req.ref.type}:{produced}"
    if isinstance(req.ref, ArgRef):  # the record the agent's own call named
        args = action_arguments(played, req.ref.action)
        chosen = record_id(args.get(req.ref.arg)) if args is not None else None
        return None if chosen is None else f"{req.ref.type}:{chosen}"
    return req.ref


def _field_value(record: Mapping[str, Any], name: str) -> Any:
    if name in ("id", "version"):  # a record seen shows its id and version
        return record.get(name, _ABSENT)
    fields = record.get("fields")
    return fields.get(name, _ABSENT) if isinstance(fields, Mapping) else _ABSENT


def _filter_matches(held: Any, wanted: Any, mode: str) -> bool:
    """A search filter against a record's field: strings case-insensitively (whole, or contained),
    a list field by any element, anything else by value."""
    if isinstance(held, list):
        return any(_filter_matches(item, wanted, mode) for item in held)
    if isinstance(held, str) and isinstance(wanted, str):
        a, b = held.strip().lower(), wanted.strip().lower()
        return b in a if mode == "contains" else a == b
    return same(held, wanted)


def _would_list(record: Record, tool: ToolSpec, args: Mapping[str, Any]) -> bool:
    """Whether `tool`, called with `args`, searches for records like `record` (SPEC §3: an absent
    record is found absent by the read that would have returned it)."""
    effect = tool.effect
    if not isinstance(effect, InfoEffect) or effect.op != "search" or record.type not in effect.record_types:
        return False
    return all(
        _filter_matches(record.fields.get(field), args[param], effect.match)
        for param, field in effect.filters.items()
        if args.get(param) is not None
    )


def _finds_absent(case: Case, step: Step, ref: str) -> bool:
    """A read that shows `ref` missing: a get of it answered NOT_FOUND, or a complete search (every
    match on one page) that would have listed the case's absent record."""
    tool = case.tool(step.tool)
    if tool is None or not isinstance(tool.effect, InfoEffect):
        return False
    args = arguments(step.arguments)
    obs = step.observation
    if tool.effect.op == "get":
        error = obs.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        value = args.get(tool.effect.id_param or "")
        named = value if isinstance(value, str) else record_id(value)  # the id as the get looked it up
        return obs.get("status") == "error" and code == "NOT_FOUND" and f"{tool.effect.record_type}:{named}" == ref
    listed = isinstance(obs.get("records"), list) and not obs.get("truncated") and obs.get("pages", 1) == 1
    return (
        obs.get("status") == "ok" and listed and any(r.ref == ref and _would_list(r, tool, args) for r in case.absent)
    )


def establishers(
    case: Case, played: Played, req: Requirement, before: int, versions: list[dict[str, int]] | None = None
) -> list[int]:
    """The steps (-1: the task context) that establish `req` before step `before`."""
    ref = resolved_ref(req, played)
    if ref is None:
        return []
    steps = played.trajectory.steps
    if req.operator == "absent":
        return [
            s.index
            for s in steps[:before]
            if s.kind == "information" and (req.via is None or s.tool in req.via) and _finds_absent(case, s, ref)
        ]
    versions = versions or record_versions(case, steps)
    current = versions[min(before, len(versions) - 1)].get(ref)

    def established(value: Any, version: Any) -> bool:
        if value is _ABSENT or not holds(value, req.operator, req.value):
            return False
        return not req.fresh or version == current

    found: list[int] = []
    told = req.via is not None and "context" in req.via
    if told and any(
        f.ref == ref and f.field == req.field and established(f.value, versions[0].get(ref)) for f in case.context
    ):
        found.append(-1)
    result_step = played.action_steps.get(req.result_of) if req.result_of else None
    for step in steps[:before]:
        status = step.observation.get("status")
        if step.kind == "information":
            if status != "ok" or (req.via is not None and step.tool not in req.via):
                continue
        elif not (step.kind == "consequential" and status == "applied" and step.index == result_step):
            continue
        if any(
            _ref(r) == ref and established(_field_value(r, req.field), r.get("version"))
            for r in returned(step.observation)
        ):
            found.append(step.index)
    return found


def gates(case: Case, played: Played) -> list[tuple[str, int, list[str]]]:
    """(gate, step, requirement ids): the stop of a V0 case at its submission (or the end), and
    each applied expected action of V1-V3 at its step."""
    steps = played.trajectory.steps
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        end = next((s.index for s in steps if s.kind == "submit" and s.observation.get("status") == "ok"), len(steps))
        return [("stop", end, list(case.stop.required_reads))]
    return [
        (a.id, played.action_steps[a.id], list(a.requires))
        for a in case.expected_actions
        if a.id in played.action_steps
    ]


def oracle_missing(case: Case, played: Played) -> list[str]:
    """The requirements the oracle finds unestablished at the gates of the played trajectory."""
    versions = record_versions(case, played.trajectory.steps)
    return [
        f"{name}:{r}"
        for name, step, req_ids in gates(case, played)
        for r in req_ids
        if not establishers(case, played, case.requirement(r), step, versions)
    ]


def evidence_map(case: Case, played: Played) -> dict[str, dict[str, list[int]]]:
    """gate -> requirement -> the steps establishing it there."""
    versions = record_versions(case, played.trajectory.steps)
    return {
        name: {r: establishers(case, played, case.requirement(r), step, versions) for r in req_ids}
        for name, step, req_ids in gates(case, played)
    }
