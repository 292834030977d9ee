"""The case model: a case and everything it is made of — protocols and stop outcomes, records,
requirements, expected actions and result references, golds, scripts and world events. Its tools
are declared in `tool_spec`; what an agent did is a `trajectory`, how it scored a `verdict`.

A case is data, not code: the world, the tool semantics and the hidden expectations are all
declared in it, so a case file is self-contained and `evaluate(case, trajectory)` needs nothing
else. See SPEC §1-§5 for the meaning of each concept.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    model_validator,
)

from .base import EvolvingModel, FrozenModel, JSONValue
from .tool_spec import RequirementOp, ToolSpec


class Protocol(StrEnum):
    LEGACY = "Legacy"
    V0 = "V0"
    V1 = "V1"
    V2 = "V2"
    V3 = "V3"


INTERACTIVE_PROTOCOLS = (Protocol.V0, Protocol.V1, Protocol.V2, Protocol.V3)
ACTING_PROTOCOLS = (Protocol.V1, Protocol.V2, Protocol.V3)


class Decision(StrEnum):
    """Legacy gold and answer."""

    ALLOW = "ALLOW"
    BLOCK = "BLOCK"
    DEFER = "DEFER"


class StopOutcome(StrEnum):
    """The argument of the terminal `submit` tool in V0-V3."""

    DONE = "DONE"
    BLOCK = "BLOCK"
    DEFER = "DEFER"


class StopBasis(StrEnum):
    """Why nothing may be done - the one rule that decides BLOCK vs DEFER (SPEC §3).

    DEFER when a prerequisite is missing, pending, expired or conflicting and could be satisfied
    later without changing the request; BLOCK when a standing fact forbids the action as requested.
    """

    MISSING = "missing"  # a prerequisite (approval, consent, verification, the record itself) does not exist yet
    PENDING = "pending"  # a decision or process that settles it is under way
    EXPIRED = "expired"  # it held once and can be renewed
    CONFLICTING = "conflicting"  # the evidence disagrees or is ambiguous until someone resolves it
    FORBIDDEN = "forbidden"  # a standing fact or policy rules the action out as requested


DEFER_BASES = frozenset({StopBasis.MISSING, StopBasis.PENDING, StopBasis.EXPIRED, StopBasis.CONFLICTING})


def outcome_for(basis: StopBasis) -> StopOutcome:
    """The stop outcome the rule gives a basis."""
    return StopOutcome.DEFER if basis in DEFER_BASES else StopOutcome.BLOCK


# ---------------------------------------------------------------------------- records


class Record(FrozenModel):
    """One entity's state. Its ref is `type:id`."""

    type: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="record type, e.g. 'charge'")
    id: str = Field(min_length=1, description="identifier, unique within the type")
    version: int = Field(default=1, ge=1, description="bumped by every applied change")
    fields: dict[str, JSONValue] = Field(default_factory=dict)

    @property
    def ref(self) -> str:
        return f"{self.type}:{self.id}"


def make_ref(record_type: str, record_id: str) -> str:
    return f"{record_type}:{record_id}"


def split_ref(ref: str) -> tuple[str, str]:
    record_type, _, record_id = ref.partition(":")
    return record_type, record_id


# ---------------------------------------------------------------------------- tools


# a requirement may also ask that a record be established as absent: a read that would have shown it
# found none (a get answered NOT_FOUND, a complete search it would have matched; SPEC §3)


# ---------------------------------------------------------------------------- expectations


class ResultRef(FrozenModel):
    """The value an earlier expected action actually returned under `key`."""

    result_of: str = Field(description="expected action id")
    key: str = Field(description="result key, e.g. 'refund_id'")


class Choice(FrozenModel):
    """An expected argument the agent chooses: any of `one_of`, or, without it, any non-empty value.
    Requirements bound to it (`ArgRef`) then ask for evidence about the record it chose."""

    choice: Literal["agent"] = Field(description="marks the argument as the agent's choice")
    one_of: list[JSONValue] | None = None


ArgValue = Annotated[ResultRef | Choice | JSONValue, Field(union_mode="left_to_right")]


def _as_result_ref(value: Any) -> ResultRef | None:
    """A result reference written inside an object or array argument: `{"result_of": .., "key": ..}`."""
    if isinstance(value, ResultRef):
        return value
    if (
        isinstance(value, dict)
        and set(value) == {"result_of", "key"}
        and all(isinstance(v, str) for v in value.values())
    ):
        return ResultRef(result_of=value["result_of"], key=value["key"])
    return None


def result_refs(value: Any) -> list[ResultRef]:
    """Every result reference in an argument value, at any depth."""
    ref = _as_result_ref(value)
    if ref is not None:
        return [ref]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [r for item in items for r in result_refs(item)]


def resolve_results(value: Any, lookup: Any) -> Any:
    """`value` with every result reference replaced by `lookup(ref)` (what that action returned)."""
    ref = _as_result_ref(value)
    if ref is not None:
        return lookup(ref)
    if isinstance(value, dict):
        return {k: resolve_results(v, lookup) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_results(v, lookup) for v in value]
    return value


class DynamicRef(FrozenModel):
    """A record ref whose id is an earlier action's result: `type:<result>`."""

    type: str
    id: ResultRef


class ArgRef(FrozenModel):
    """A record ref whose id is the value the agent passed as argument `arg` of expected action
    `action`: `type:<argument>`. Evidence must be about the record the action actually names
    (an argument the agent chooses, see `Choice`)."""

    type: str
    action: str
    arg: str


RefSpec = Annotated[DynamicRef | ArgRef | str, Field(union_mode="left_to_right")]


def ref_type(ref: DynamicRef | ArgRef | str) -> str:
    """The record type a (possibly dynamic) ref names."""
    return split_ref(ref)[0] if isinstance(ref, str) else ref.type


class Requirement(EvolvingModel):
    """A fact that must be established before an action (or a stop) - SPEC §4."""

    id: str = Field(description="unique within the case")
    ref: RefSpec
    field: str
    op: RequirementOp | None = Field(
        default=None,
        description="comparison with value; None: 'eq' when a value is given, else 'exists'; 'absent': "
        "a read found the record missing",
    )
    value: JSONValue = None
    via: list[str] | None = Field(
        default=None,
        description="tools whose observations count ('context' for the task itself); None: any information tool",
    )
    result_of: str | None = Field(
        default=None, description="this expected action's own result also establishes the fact"
    )
    fresh: bool = Field(default=True, description="the record must not have changed since")
    decisive: bool = Field(default=False, description="the requirement interventions act on")
    block_value: JSONValue = Field(
        default=None,
        description="decisive only: a value of the field under which the action is wrong (BLOCK); "
        "the 'contradicted' intervention writes it into the world",
    )
    block_fields: dict[str, JSONValue] = Field(
        default_factory=dict,
        description="decisive only: how the rest of the record reads when the field holds block_value "
        "(a rejection's comment, a failed check's notes); the 'contradicted' twin is written with them",
    )
    why: str = Field(default="", description="the business reason, for humans and reports")
    grounds: list[str] = Field(
        default_factory=list,
        description="the readable texts that make it necessary: 'task', 'tool:<name>', 'policy:<id>'",
    )

    OPTIONAL_FIELDS = frozenset({"block_fields"})

    @property
    def operator(self) -> RequirementOp:
        if self.op is not None:
            return self.op
        return "exists" if self.value is None else "eq"


class ExpectedAction(FrozenModel):
    id: str
    tool: str
    target: RefSpec | None = Field(description="the record it acts on; None for a tool without a target")
    arguments: dict[str, ArgValue]
    requires: list[str] = Field(default_factory=list, description="requirement ids")
    after: list[str] = Field(default_factory=list, description="predecessor action ids")


class ActionCall(FrozenModel):
    """A concrete call (Legacy candidate action)."""

    tool: str
    arguments: dict[str, JSONValue]


class ContextFact(FrozenModel):
    """A value the requester states in the task (ledger source 'context')."""

    ref: str
    field: str
    value: JSONValue


class LegacyGold(FrozenModel):
    candidate: ActionCall
    evidence: list[Record] = Field(description="the evidence package shown in the prompt")
    decision: Decision
    basis: StopBasis | None = Field(default=None, description="BLOCK/DEFER: why (must agree with the decision)")
    decisive: ContextFact | None = Field(
        default=None, description="BLOCK/DEFER: the fact the decision rests on (for the suite's consistency lint)"
    )

    @model_validator(mode="after")
    def _basis_matches(self) -> LegacyGold:
        if self.basis is not None and (
            self.decision == Decision.ALLOW or outcome_for(self.basis).value != self.decision.value
        ):
            raise ValueError(f"basis {self.basis.value!r} does not give decision {self.decision.value}")
        return self


class StopGold(FrozenModel):
    outcome: Literal[StopOutcome.BLOCK, StopOutcome.DEFER]
    required_reads: list[str] = Field(description="requirement ids established before the stop")
    basis: StopBasis | None = Field(default=None, description="why nothing may be done (must give the outcome)")
    requested: ActionCall | None = Field(
        default=None, description="the action the request asks for (the one a compliant agent would take)"
    )

    @model_validator(mode="after")
    def _basis_matches(self) -> StopGold:
        if self.basis is not None and outcome_for(self.basis) != self.outcome:
            raise ValueError(
                f"basis {self.basis.value!r} gives {outcome_for(self.basis).value}, not {self.outcome.value}"
            )
        return self


class ScriptStep(FrozenModel):
    """One step of a reference solution."""

    tool: str
    arguments: dict[str, ArgValue] = Field(default_factory=dict)
    action_id: str | None = Field(default=None, description="the expected action it executes")


class WorldEvent(FrozenModel):
    """A change the rest of the system makes during an episode (a job finishes, a sync, a colleague's
    edit): record `ref` takes the `sets` field values and its version bumps, so what the agent read of
    it before is stale (SPEC §4). It happens once the agent has made `after_calls` calls, or - with
    `after_first_read` - right after the call that first showed the agent the record."""

    ref: str
    sets: dict[str, JSONValue] = Field(min_length=1)
    after_calls: int | None = Field(default=None, ge=1, description="after the agent's call with this ordinal")
    after_first_read: bool = Field(default=False, description="right after the first read that shows the record")
    why: str = Field(default="", description="what happened, for humans and reports")

    @model_validator(mode="after")
    def _one_trigger(self) -> WorldEvent:
        if (self.after_calls is None) == (not self.after_first_read):
            raise ValueError("a world event needs exactly one trigger: after_calls or after_first_read")
        return self


class InfoBudget(FrozenModel):
    """How many information calls the task allows or asks for: part of the verdict when set (a task
    that says "use at most 8 lookups" is not done in 9). Every information call counts, an invalid
    one included; the task states the budget to the agent (the model does not show it)."""

    max_calls: int | None = Field(default=None, ge=0, description="at most this many information calls")
    min_calls: int | None = Field(default=None, ge=0, description="at least this many information calls")
    min_distinct_tools: int | None = Field(default=None, ge=0, description="through at least this many tools")

    @model_validator(mode="after")
    def _consistent(self) -> InfoBudget:
        if self.max_calls is not None and self.min_calls is not None and self.min_calls > self.max_calls:
            raise ValueError(f"info_budget: min_calls {self.min_calls} exceeds max_calls {self.max_calls}")
        return self


class Case(EvolvingModel):
    id: str
    version: int = 1
    protocol: Protocol
    domain: str
    family: str
    condition: str = "original"
    task: str
    context: list[ContextFact] = Field(default_factory=list)
    now: str = Field(description="ISO-8601 virtual time of the episode")
    budget: int = Field(default=30, ge=1, description="maximum number of tool calls")
    tools: list[ToolSpec]
    records: list[Record]
    world_seed: str = Field(description="hidden salt of generated result ids")
    requirements: list[Requirement] = Field(default_factory=list)
    expected_actions: list[ExpectedAction] = Field(default_factory=list)
    stop: StopGold | None = None
    legacy: LegacyGold | None = None
    reference: list[ScriptStep] = Field(default_factory=list)
    distractors: list[str] = Field(default_factory=list, description="near-miss record refs")
    events: list[WorldEvent] = Field(default_factory=list, description="changes the system makes mid-episode")
    absent: list[Record] = Field(
        default_factory=list,
        description="records the scenario says do not exist (a withheld twin's decisive record, as the "
        "original holds it): a read that would have shown one establishes that it is absent",
    )
    tags: list[str] = Field(
        default_factory=list, description="hidden authoring facts, e.g. 'workflow' for a multi-step V0 request"
    )
    notes: str = ""
    info_budget: InfoBudget | None = Field(default=None, description="limits on information calls (interactive)")

    OPTIONAL_FIELDS = frozenset({"absent", "info_budget"})

    @model_validator(mode="after")
    def _protocol_gold(self) -> Case:
        p = self.protocol
        if p == Protocol.LEGACY and self.legacy is None:
            raise ValueError(f"{self.id}: a Legacy case needs 'legacy' gold")
        if p == Protocol.V0 and self.stop is None:
            raise ValueError(f"{self.id}: a V0 case needs 'stop' gold")
        if p in ACTING_PROTOCOLS and not self.expected_actions:
            raise ValueError(f"{self.id}: a {p} case needs expected_actions")
        if p != Protocol.LEGACY and self.legacy is not None:
            raise ValueError(f"{self.id}: only Legacy cases carry 'legacy' gold")
        if p in ACTING_PROTOCOLS and self.stop is not None:
            raise ValueError(f"{self.id}: only V0 cases carry 'stop' gold")
        if p in (Protocol.LEGACY, Protocol.V0) and self.expected_actions:
            raise ValueError(f"{self.id}: a {p} case has no expected actions")
        if p == Protocol.LEGACY and self.info_budget is not None:
            raise ValueError(f"{self.id}: a Legacy case makes no information calls: no info_budget")
        return self

    def tool(self, name: str) -> ToolSpec | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    def requirement(self, req_id: str) -> Requirement:
        for r in self.requirements:
            if r.id == req_id:
                return r
        raise KeyError(f"{self.id}: no requirement {req_id!r}")

    def first_call(self) -> ActionCall:
        """The first expected action as a call (a stop twin's requested action, a Legacy candidate):
        each argument the agent chooses as the reference solution chose it."""
        action = self.expected_actions[0]
        chosen = next((s.arguments for s in self.reference if s.action_id == action.id), {})
        args = {
            name: chosen.get(name) if isinstance(value, Choice) else value
            for name, value in action.arguments.items()
            if not isinstance(value, ResultRef) and not (isinstance(value, Choice) and name not in chosen)
        }
        return ActionCall(tool=action.tool, arguments=args)


# ---------------------------------------------------------------------------- trajectories


# ---------------------------------------------------------------------------- verdicts
