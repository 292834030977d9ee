"""Derive a case's reference solution by simulation: read what each gate needs, then act.

For every expected action (in the listed, topological order) the derivation reads each requirement
that is not yet established, with the requirement's `via` tool or the domain's `get` tool for the
record type, then executes the action with the actual results of its predecessors. V0 reads its
required reads and submits the gold outcome; Legacy decides the gold decision.
"""

from __future__ import annotations

from typing import Any

from ..core.episode import DECIDE, SUBMIT, Episode
from ..core.ledger import Ledger
from ..core.model import (
    ArgRef,
    Case,
    Choice,
    DynamicRef,
    ExpectedAction,
    Protocol,
    Requirement,
    ResultRef,
    ScriptStep,
    ref_type,
    split_ref,
)
from ..core.script import run_step
from ..core.tool_spec import InfoEffect
from ..core.values import compare
from ..core.world import World, id_text


class ReferenceError(ValueError):
    """The case cannot be solved as declared; the message names the case and requirement."""


def _reader(case: Case, req: Requirement, record_type: str) -> tuple[str, str]:
    """(tool, id parameter) of a get tool allowed to establish `req`."""
    for tool in case.tools:
        effect = tool.effect
        if not isinstance(effect, InfoEffect) or effect.op != "get" or effect.record_type != record_type:
            continue
        if req.via is not None and tool.name not in req.via:
            continue
        shown = req.field in ("id", "version") or req.operator == "absent"  # on every record a get returns
        if effect.projection is not None and req.field not in effect.projection and not shown:
            continue
        assert effect.id_param is not None
        return tool.name, effect.id_param
    raise ReferenceError(f"{case.id}: no get tool can establish requirement {req.id} ({record_type}.{req.field})")


def _choose(case: Case, action: ExpectedAction) -> dict[str, Any]:
    """The reference's value of each argument the agent chooses: the first listed value under which
    every requirement bound to that argument holds in the case's world."""
    world = World(case)
    chosen: dict[str, Any] = {}
    for name, value in action.arguments.items():
        if not isinstance(value, Choice):
            continue
        if not value.one_of:
            raise ReferenceError(
                f"{case.id}: {action.id} argument {name!r}: a derived reference needs the choice's one_of"
            )
        bound = [
            req
            for req in map(case.requirement, action.requires)
            if isinstance(req.ref, ArgRef) and (req.ref.action, req.ref.arg) == (action.id, name)
        ]
        for option in value.one_of:
            if all(_holds(world.get(f"{ref_type(req.ref)}:{id_text(option)}"), req) for req in bound):
                chosen[name] = option
                break
        else:
            raise ReferenceError(
                f"{case.id}: {action.id} argument {name!r}: no listed value satisfies its requirements"
            )
    return chosen


def _holds(record: dict[str, Any] | None, req: Requirement) -> bool:
    if record is None:
        return False
    value = record[req.field] if req.field in ("id", "version") else record["fields"].get(req.field)
    return compare(value, req.operator, req.value)


def derive_reference(case: Case) -> list[ScriptStep]:
    if case.protocol == Protocol.LEGACY:
        assert case.legacy is not None
        return [ScriptStep(tool=DECIDE, arguments={"decision": case.legacy.decision.value})]
    episode = Episode(case)
    script: list[ScriptStep] = []
    results: dict[str, dict[str, Any]] = {}
    action_steps: dict[str, int] = {}
    chosen: dict[str, dict[str, Any]] = {}  # action id -> the values it chooses

    def run(step: ScriptStep) -> dict[str, Any]:
        observation = run_step(episode, step, results)
        script.append(step)
        if step.action_id is not None:
            action_steps[step.action_id] = len(episode.steps) - 1
        return observation

    def ensure(req_ids: list[str]) -> None:
        for req_id in req_ids:
            req = case.requirement(req_id)
            ledger = Ledger.build(case, episode.steps)
            ref = req.ref
            id_arg: ResultRef | str
            if isinstance(ref, DynamicRef):
                produced = results.get(ref.id.result_of, {}).get(ref.id.key)
                if produced is None:
                    raise ReferenceError(f"{case.id}: requirement {req_id} needs {ref.id.result_of} first")
                record_type, record_id, id_arg = ref.type, str(produced), ref.id
            elif isinstance(ref, ArgRef):
                record_type, record_id = ref.type, id_text(chosen[ref.action][ref.arg])
                id_arg = record_id
            else:
                record_type, record_id = split_ref(ref)
                id_arg = record_id
            if ledger.establishing_fact(req, f"{record_type}:{record_id}", len(episode.steps), action_steps):
                continue
            tool, id_param = _reader(case, req, record_type)
            for _ in range(2):  # a second read when a world event changed the record right after the first
                run(ScriptStep(tool=tool, arguments={id_param: id_arg}))
                ledger = Ledger.build(case, episode.steps)
                if ledger.establishing_fact(req, f"{record_type}:{record_id}", len(episode.steps), action_steps):
                    break
            else:
                raise ReferenceError(
                    f"{case.id}: reading {record_type}:{record_id} with {tool} does not "
                    f"establish requirement {req_id} ({req.field} {req.operator} {req.value!r})"
                )

    def ensure_settled(req_ids: list[str]) -> None:
        """`ensure` until a pass reads nothing: a world event during the reads may stale an earlier one."""
        settled = -1
        while settled != len(episode.steps):
            settled = len(episode.steps)
            ensure(req_ids)

    for step in case.reference:
        run(step)
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        ensure_settled(case.stop.required_reads)
        run(ScriptStep(tool=SUBMIT, arguments={"outcome": case.stop.outcome.value}))
        return script
    for action in case.expected_actions:
        chosen[action.id] = _choose(case, action)
        ensure_settled(action.requires)
        arguments = {**action.arguments, **chosen[action.id]}
        observation = run(ScriptStep(tool=action.tool, arguments=arguments, action_id=action.id))
        if observation.get("status") != "applied":
            raise ReferenceError(
                f"{case.id}: expected action {action.id} ({action.tool}) was not applied: {observation}"
            )
    run(ScriptStep(tool=SUBMIT, arguments={"outcome": "DONE"}))
    return script
