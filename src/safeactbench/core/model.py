"""The case model: every type a case file, a trajectory or a verdict is made of.

A case is data, not code: the world, the tool semantics and the hidden expectations are all
declared here, so a case file is self-contained and `evaluate(case, trajectory)` needs nothing
else. See SPEC §1-§5 for the meaning of each concept.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

JSONValue = Any  # a JSON value (str, number, bool, None, list, dict)


def first_error(exc: ValidationError, root: str = "(root)") -> str:
    """`field a.b: message` for the first problem pydantic found (used by every file reader)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or root
    return f"field {where}: {first['msg']}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Extended(_Model):
    """A model that gained fields after the suite was published: they are written only when set,
    so published case bytes (and their checksums) stay what they were."""

    OPTIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_unset_additions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name, default in _optional_defaults(type(self)).items():
            if name in data and data[name] == default:
                del data[name]
        return data


@cache
def _optional_defaults(model: type[_Extended]) -> dict[str, Any]:
    """Each optional field's default, computed once per model (pydantic inspects the default
    factory's signature on every call: most of the time of writing a suite)."""
    return {name: model.model_fields[name].get_default(call_default_factory=True) for name in model.OPTIONAL_FIELDS}


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


class Record(_Model):
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


class Param(_Extended):
    """One tool parameter: a scalar, an object, or an array of scalars or objects (SPEC §3)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    type: Literal["string", "number", "integer", "boolean", "object", "array"]
    description: str
    required: bool = True
    enum: list[str] | None = Field(default=None, description="the allowed values (an array's: of its elements)")
    items: Literal["string", "number", "integer", "boolean", "object"] | None = Field(
        default=None, description="array: the type of its elements"
    )
    match: Literal["exact", "unordered"] = Field(
        default="exact",
        description="how the evaluator compares it with the expected value: 'exact' JSON equality (objects by "
        "keys, arrays in order), 'unordered' an array as a multiset",
    )
    harmless: bool = Field(
        default=False,
        description="may be passed although the expected action does not name it (e.g. an idempotency key)",
    )
    role: str | None = Field(
        default=None,
        description="the record type whose id it holds (a search filter on a link field): shown to agents "
        "as the tool's parameter roles; a get's id, an action's target and references have theirs by effect",
    )

    OPTIONAL_FIELDS = frozenset({"items", "match", "role"})

    @model_validator(mode="after")
    def _shape(self) -> Param:
        if (self.type == "array") != (self.items is not None):
            raise ValueError(f"parameter {self.name!r}: 'items' is given for arrays, and only for them")
        if self.match == "unordered" and self.type != "array":
            raise ValueError(f"parameter {self.name!r}: only an array can be matched 'unordered'")
        return self


class Operand(_Model):
    """A value used by a tool's effect: exactly one of arg, field, value, now."""

    arg: str | None = Field(default=None, description="the call argument of this name")
    field: str | None = Field(default=None, description="the target record's field ('id' and 'version' included)")
    value: JSONValue = Field(default=None, description="a literal")
    now: bool = Field(default=False, description="the case's virtual 'now'")

    @model_validator(mode="after")
    def _exactly_one(self) -> Operand:
        given = [self.arg is not None, self.field is not None, self.now]
        if sum(given) > 1:
            raise ValueError("an operand names at most one of arg, field, now (or a value)")
        return self


CompareOp = Literal["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "exists"]
# a requirement may also ask that a record be established as absent: a read that would have shown it
# found none (a get answered NOT_FOUND, a complete search it would have matched; SPEC §3)
RequirementOp = CompareOp | Literal["absent"]


class Invariant(_Model):
    """A business rule the system itself enforces: the call is rejected with `code` unless it holds."""

    left: Operand
    op: CompareOp
    right: Operand = Operand()
    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    message: str


class CreateSpec(_Model):
    """A record an applied action creates; its id is returned under `result_key`."""

    type: str
    id_prefix: str
    result_key: str
    fields: dict[str, Operand]


class InfoEffect(_Extended):
    """Read-only semantics: `get` one record by id, or `search` records by field filters.

    A `candidates` search answers like a lookup service: when the filters given (none, or some)
    match records of several argument sets, it returns those argument sets for the agent to refine
    (`candidates`), not the records; when they match one, it returns its records. A search with
    `page_param` returns `limit` records per page."""

    op: Literal["get", "search"]
    record_type: str
    other_types: list[str] = Field(default_factory=list, description="further record types it reads")
    id_param: str | None = Field(default=None, description="get: the parameter holding the id")
    filters: dict[str, str] = Field(
        default_factory=dict, description="search: parameter name -> record field it matches"
    )
    match: Literal["exact", "contains"] = Field(
        default="exact", description="search: how string filters compare (case-insensitive)"
    )
    projection: list[str] | None = Field(default=None, description="fields returned; None returns every field")
    limit: int = 20
    candidates: bool = Field(default=False, description="search: several matching argument sets -> candidates")
    page_param: str | None = Field(default=None, description="search: the parameter holding the page (from 1)")

    OPTIONAL_FIELDS = frozenset({"other_types", "candidates", "page_param"})

    @model_validator(mode="after")
    def _shape(self) -> InfoEffect:
        if self.op == "get" and not self.id_param:
            raise ValueError("a get tool needs id_param")
        if self.op == "search" and not self.filters:
            raise ValueError("a search tool needs at least one filter")
        return self

    @property
    def record_types(self) -> tuple[str, ...]:
        return (self.record_type, *self.other_types)


class ActionEffect(_Extended):
    """State-changing semantics: a consequential tool acts on one existing target record, or - with
    no target - only creates records and returns results (a receipt, a filed document)."""

    target_type: str | None = None
    target_param: str | None = None
    references: dict[str, str] = Field(default_factory=dict, description="parameter -> record type that must exist")
    expected_version_param: str | None = Field(
        default=None, description="optimistic concurrency: must equal the target's version"
    )
    invariants: list[Invariant] = Field(default_factory=list)
    sets: dict[str, Operand] = Field(default_factory=dict, description="target field updates")
    creates: CreateSpec | None = None
    returns: list[str] = Field(
        default_factory=list, description="further result keys, each a fresh identifier (e.g. 'receipt_id')"
    )

    OPTIONAL_FIELDS = frozenset({"returns"})

    @model_validator(mode="after")
    def _target(self) -> ActionEffect:
        if (self.target_type is None) != (self.target_param is None):
            raise ValueError("an action names both target_type and target_param, or neither")
        if self.target_type is None and (self.sets or self.expected_version_param):
            raise ValueError("an action without a target cannot set its fields or check its version")
        if self.target_type is None and self.creates is None and not self.returns:
            raise ValueError("an action without a target must create a record or return a result")
        return self


class ToolSpec(_Model):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: Literal["information", "consequential"]
    description: str
    params: list[Param]
    effect: InfoEffect | ActionEffect

    @model_validator(mode="after")
    def _kind_matches_effect(self) -> ToolSpec:
        is_info = isinstance(self.effect, InfoEffect)
        if is_info != (self.kind == "information"):
            raise ValueError(f"tool {self.name!r}: kind {self.kind!r} does not match its effect")
        names = {p.name for p in self.params}
        declared: set[str] = set()
        if isinstance(self.effect, InfoEffect):
            declared = set(self.effect.filters) | {self.effect.id_param or "", self.effect.page_param or ""}
        else:
            declared = {self.effect.target_param or "", *self.effect.references}
            declared |= {self.effect.expected_version_param or ""}
        missing = (declared - {""}) - names
        if missing:
            raise ValueError(f"tool {self.name!r}: effect names unknown parameters {sorted(missing)}")
        return self

    def json_schema(self) -> dict[str, Any]:
        """The JSON-schema `parameters` object shown to agents."""
        return params_schema(self.params)


def params_schema(params: list[Param]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for p in params:
        prop: dict[str, Any] = {"type": p.type, "description": p.description}
        if p.items is not None:  # an array's enum lists what its elements may be
            prop["items"] = {"type": p.items, **({"enum": list(p.enum)} if p.enum is not None else {})}
        elif p.enum is not None:
            prop["enum"] = list(p.enum)
        properties[p.name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


# ---------------------------------------------------------------------------- expectations


def summary_tools(tools: Sequence[ToolSpec], record_type: str, field: str) -> list[str]:
    """The search tools over `record_type` whose results show `field`: each establishes that field
    of the records it returns as well as the record's own get tool does."""
    return [
        t.name
        for t in tools
        if isinstance(t.effect, InfoEffect)
        and t.effect.op == "search"
        and t.effect.record_type == record_type
        and (t.effect.projection is None or field in t.effect.projection)
    ]


class ResultRef(_Model):
    """The value an earlier expected action actually returned under `key`."""

    result_of: str = Field(description="expected action id")
    key: str = Field(description="result key, e.g. 'refund_id'")


class Choice(_Model):
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


class DynamicRef(_Model):
    """A record ref whose id is an earlier action's result: `type:<result>`."""

    type: str
    id: ResultRef


class ArgRef(_Model):
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


class Requirement(_Extended):
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


class ExpectedAction(_Model):
    id: str
    tool: str
    target: RefSpec | None = Field(description="the record it acts on; None for a tool without a target")
    arguments: dict[str, ArgValue]
    requires: list[str] = Field(default_factory=list, description="requirement ids")
    after: list[str] = Field(default_factory=list, description="predecessor action ids")


class ActionCall(_Model):
    """A concrete call (Legacy candidate action)."""

    tool: str
    arguments: dict[str, JSONValue]


class ContextFact(_Model):
    """A value the requester states in the task (ledger source 'context')."""

    ref: str
    field: str
    value: JSONValue


class LegacyGold(_Model):
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


class StopGold(_Model):
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


class ScriptStep(_Model):
    """One step of a reference solution."""

    tool: str
    arguments: dict[str, ArgValue] = Field(default_factory=dict)
    action_id: str | None = Field(default=None, description="the expected action it executes")


class WorldEvent(_Model):
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


class Case(_Extended):
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

    OPTIONAL_FIELDS = frozenset({"absent"})

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


StepKind = Literal["information", "consequential", "submit", "decide", "invalid"]


class Step(_Model):
    """One agent call and the observation the environment returned."""

    index: int = Field(ge=0)
    kind: StepKind
    tool: str
    arguments: dict[str, JSONValue] | str = Field(
        description="parsed arguments, or the raw text when it was not a JSON object"
    )
    observation: dict[str, JSONValue]


EndReason = Literal["submitted", "decided", "budget_exhausted", "agent_stopped", "runtime_error"]


class Trajectory(_Model):
    steps: list[Step] = Field(default_factory=list)
    end_reason: EndReason = "agent_stopped"


# ---------------------------------------------------------------------------- verdicts


class OutcomeCode(StrEnum):
    CASE_SUCCESS = "CASE_SUCCESS"
    WRONG_DECISION = "WRONG_DECISION"
    INVALID_DECISION = "INVALID_DECISION"
    UNEXPECTED_CONSEQUENTIAL_ACTION = "UNEXPECTED_CONSEQUENTIAL_ACTION"
    WRONG_TARGET = "WRONG_TARGET"
    ARGUMENT_MISMATCH = "ARGUMENT_MISMATCH"
    UNSUPPORTED_ACTION = "UNSUPPORTED_ACTION"
    DEPENDENCY_VIOLATION = "DEPENDENCY_VIOLATION"
    INVALID_RESULT_REFERENCE = "INVALID_RESULT_REFERENCE"
    DUPLICATE_ACTION = "DUPLICATE_ACTION"
    ACTION_REJECTED = "ACTION_REJECTED"
    INCOMPLETE_WORKFLOW = "INCOMPLETE_WORKFLOW"
    INCOMPLETE_INVESTIGATION = "INCOMPLETE_INVESTIGATION"
    WRONG_STOP_OUTCOME = "WRONG_STOP_OUTCOME"
    NO_SUBMISSION = "NO_SUBMISSION"
    TRAJECTORY_MISMATCH = "TRAJECTORY_MISMATCH"
    INVALID_TRAJECTORY = "INVALID_TRAJECTORY"


class Finding(_Model):
    code: OutcomeCode
    step: int | None = Field(description="trajectory step index; None for whole-episode findings")
    action: str | None = Field(default=None, description="expected action id concerned")
    check: str = Field(description="which check produced it, e.g. 'Argument check'")
    detail: str


class Gate(_Model):
    """The evidence check at one expected action (or at the V0 stop)."""

    action: str
    step: int | None
    executed: bool
    established: list[str]
    missing: list[str]


class Diagnostics(_Model):
    first_action_step: int | None = None
    evidence_complete_before_first_action: bool | None = None
    coverage: list[float] = Field(
        default_factory=list,
        description="required-read coverage at the decision points: V0 stop, V1 first attempt, V2/V3 each gate",
    )
    evidence_complete_at_end: bool = False
    required_reads: int = 0
    info_calls: int = 0
    invalid_calls: int = 0
    action_attempts: int = 0
    actions_completed: int = 0
    actions_expected: int = 0
    gates: list[Gate] = Field(default_factory=list)
    submitted: str | None = None
    tools_queried: list[str] = Field(default_factory=list)
    harmful_action: bool = Field(
        default=False,
        description="stop cases: the requested action, or a consequential action on its target, was applied",
    )


class Verdict(_Model):
    case_id: str
    protocol: Protocol
    score: int = Field(ge=0, le=1)
    outcome: OutcomeCode
    failure_mode: str | None = Field(description="SPEC §5 taxonomy label; None on success")
    findings: list[Finding]
    diagnostics: Diagnostics
