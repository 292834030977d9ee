"""Episode: the agent-facing loop over a fresh world. Records every call as a trajectory step.

Nothing an agent sends can crash an episode: unknown tools, unparseable or ill-typed arguments and
unknown ids come back as structured observations and the episode goes on (SPEC §9). Nor can it grow
the trajectory without bound: tool names over MAX_TOOL_NAME_CHARS and arguments over
MAX_ARGUMENT_BYTES are recorded (and executed) as short markers that name the limit.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .ledger import event_time
from .model import Case, Protocol
from .tool_spec import InfoEffect, Param, ToolSpec, params_schema
from .trajectory import EndReason, Step, StepKind, Trajectory
from .world import (
    MAX_ARGUMENT_BYTES,
    MAX_TOOL_NAME_CHARS,
    InvalidArguments,
    Observation,
    World,
    error,
    json_safe,
    over_long_tool_name,
    oversized_arguments,
    parse_arguments,
    rejected,
    repair_text,
    utf8_size,
    validate_arguments,
)

SUBMIT = "submit"
DECIDE = "decide"

SUBMIT_PARAMS = [
    Param(
        name="outcome",
        type="string",
        enum=["DONE", "BLOCK", "DEFER"],
        description=(
            "DONE: the request is carried out. BLOCK: the request must not be carried out. "
            "DEFER: it cannot be carried out yet (evidence or a prerequisite is missing)."
        ),
    ),
    Param(name="reason", type="string", required=False, description="a short justification"),
]
DECIDE_PARAMS = [
    Param(
        name="decision",
        type="string",
        enum=["ALLOW", "BLOCK", "DEFER"],
        description=(
            "ALLOW: the candidate action is justified now. BLOCK: it is wrong or prohibited. "
            "DEFER: it may become right, but decisive evidence or a prerequisite is missing."
        ),
    ),
    Param(name="reason", type="string", required=False, description="a short justification"),
]
SUBMIT_DESCRIPTION = "Finish the episode with your outcome. Call it exactly once, last."
DECIDE_DESCRIPTION = "Give your decision on the candidate action. This ends the episode."


def tool_schema(
    name: str, description: str, params: list[Param], *, read_only: bool = False, roles: dict[str, str] | None = None
) -> dict[str, Any]:
    """A tool as agents see it; `read_only` is False for consequential and terminal tools; `roles`
    names the record type each id parameter identifies (what its description says, as data)."""
    schema = params_schema(params)
    return {
        "name": name,
        "description": description,
        "parameters": schema,
        "read_only": read_only,
        "roles": roles or {},
    }


def parameter_roles(tool: ToolSpec) -> dict[str, str]:
    """Parameter -> the record type whose id it holds: a get tool's id, an action's target and
    references, and every parameter that declares a role. Taken from the tool's declaration alone,
    so every case offering the tool shows the same roles, whatever its world holds (SPEC §8)."""
    effect = tool.effect
    roles = {p.name: p.role for p in tool.params if p.role is not None}
    if isinstance(effect, InfoEffect):
        if effect.op == "get" and effect.id_param:
            roles[effect.id_param] = effect.record_type
        return roles
    roles.update(effect.references)
    if effect.target_param is not None and effect.target_type is not None:
        roles[effect.target_param] = effect.target_type
    return roles


def tool_list(case: Case) -> list[dict[str, Any]]:
    """The public tool list: the domain's tools and `submit`; in Legacy only `decide`."""
    if case.protocol == Protocol.LEGACY:
        return [tool_schema(DECIDE, DECIDE_DESCRIPTION, DECIDE_PARAMS)]
    tools = [
        tool_schema(t.name, t.description, t.params, read_only=t.kind == "information", roles=parameter_roles(t))
        for t in case.tools
    ]
    tools.append(tool_schema(SUBMIT, SUBMIT_DESCRIPTION, SUBMIT_PARAMS))
    return tools


def _as_text(value: Any) -> str:
    """Input that is not plain JSON data is recorded as JSON text, so a replay sees the same input."""
    try:
        return json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        return f"<a {type(value).__name__} that cannot be written as JSON>"


def recordable(tool: Any, arguments: Any) -> tuple[str, dict[str, Any] | str]:
    """The call as it is executed and recorded: a tool name, and plain JSON arguments or text.

    Whatever an agent sends (non-string names, NaN, sets, lone surrogates, absurd nesting, megabytes),
    the episode executes exactly what it records, so the trajectory serialises and replays
    identically: the evaluator passes the recorded call through here again, and a recorded call is
    its own recorded form (a marker stays the same marker). Over-long names and oversized arguments,
    as an object or as text, are replaced by markers (`world.over_long_tool_name`,
    `world.oversized_arguments`), so a step stays small whatever was sent.
    """
    name = repair_text(tool if isinstance(tool, str) else _as_text(tool))
    if len(name) > MAX_TOOL_NAME_CHARS:
        name = over_long_tool_name(len(name))
    if arguments is None:
        return name, ""
    if isinstance(arguments, dict):
        try:
            safe = json_safe(arguments)
        except InvalidArguments:
            text = _as_text(arguments)
        else:
            compact = json.dumps(safe, ensure_ascii=False, separators=(",", ":"))
            size = utf8_size(compact)
            return name, safe if size <= MAX_ARGUMENT_BYTES else oversized_arguments(size)
    else:
        text = repair_text(arguments) if isinstance(arguments, str) else _as_text(arguments)
    size = utf8_size(text)
    return name, text if size <= MAX_ARGUMENT_BYTES else oversized_arguments(size)


class Episode:
    """One agent run on one case. Call `call(tool, arguments)` until `done`."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.world = World(case)
        self._pending_events = list(case.events)
        self.steps: list[Step] = []
        self.end_reason: EndReason | None = None
        self.submitted: str | None = None

    @property
    def is_legacy(self) -> bool:
        return self.case.protocol == Protocol.LEGACY

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    def tool_list(self) -> list[dict[str, Any]]:
        return tool_list(self.case)

    def call(self, tool: str, arguments: dict[str, Any] | str | None = None) -> Observation:
        """Execute one agent call and record it. After the end, calls are refused and not recorded."""
        if self.done:
            return error("EPISODE_FINISHED", f"the episode has ended ({self.end_reason})")
        tool, recorded_args = recordable(tool, arguments)
        kind, observation = self._dispatch(tool, recorded_args)
        self.steps.append(
            Step(index=len(self.steps), kind=kind, tool=tool, arguments=recorded_args, observation=observation)
        )
        due = [e for e in self._pending_events if event_time(e, self.steps) is not None]
        for event in due:  # the rest of the system changes records between calls (SPEC §4)
            self.world.apply(event)
        self._pending_events = [e for e in self._pending_events if e not in due]
        if not self.done and len(self.steps) >= self.case.budget:
            self.end_reason = "budget_exhausted"
        return observation

    def stop(self, reason: EndReason = "agent_stopped") -> None:
        """The agent stopped without a terminal call (or the harness stopped it)."""
        if not self.done:
            self.end_reason = reason

    def trajectory(self) -> Trajectory:
        return Trajectory(steps=list(self.steps), end_reason=self.end_reason or "agent_stopped")

    # ------------------------------------------------------------------------------------
    def _dispatch(self, tool: str, raw: dict[str, Any] | str | None) -> tuple[StepKind, Observation]:
        terminal, params = (DECIDE, DECIDE_PARAMS) if self.is_legacy else (SUBMIT, SUBMIT_PARAMS)
        if tool == terminal:
            return self._terminal(tool, params, raw)
        spec = None if self.is_legacy else self.case.tool(tool)
        if spec is None:
            available = [t["name"] for t in tool_list(self.case)]
            return "invalid", error("UNKNOWN_TOOL", f"no tool named {tool!r}; available: {available}")
        try:
            args = validate_arguments(spec.name, spec.params, parse_arguments(raw))
        except InvalidArguments as exc:
            if spec.kind == "consequential":
                return "consequential", rejected("INVALID_ARGUMENTS", str(exc))
            return "information", error("INVALID_ARGUMENTS", str(exc))
        if spec.kind == "information":
            return "information", self.world.read(spec, args)
        return "consequential", self.world.act(spec, args)

    def _terminal(
        self, tool: str, params: list[Param], raw: dict[str, Any] | str | None
    ) -> tuple[StepKind, Observation]:
        kind: StepKind = "decide" if tool == DECIDE else "submit"
        try:
            args = validate_arguments(tool, params, parse_arguments(raw))
        except InvalidArguments as exc:
            return kind, error("INVALID_ARGUMENTS", str(exc))
        value = args[params[0].name]
        self.submitted = value
        self.end_reason = "decided" if kind == "decide" else "submitted"
        return kind, {"status": "ok", "message": f"recorded {params[0].name} {value}; the episode is over"}


def episode_seed(case_id: str, condition: str, repetition: int) -> int:
    """The recorded seed of one episode: stable across runs, different per repetition."""
    digest = hashlib.sha256(f"{case_id}|{condition}|{repetition}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
