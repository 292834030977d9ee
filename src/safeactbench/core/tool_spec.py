"""The tools of a case: parameters, what an information tool reads (`InfoEffect`) and what a
consequential tool does (`ActionEffect`: invariants, created records), and the JSON Schema a tool
list shows an agent (SPEC §1-§2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import (
    Field,
    model_validator,
)

from .base import EvolvingModel, FrozenModel, JSONValue


class Param(EvolvingModel):
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


class Operand(FrozenModel):
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


RequirementOp = CompareOp | Literal["absent"]


class Invariant(FrozenModel):
    """A business rule the system itself enforces: the call is rejected with `code` unless it holds."""

    left: Operand
    op: CompareOp
    right: Operand = Operand()
    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    message: str


class CreateSpec(FrozenModel):
    """A record an applied action creates; its id is returned under `result_key`."""

    type: str
    id_prefix: str
    result_key: str
    fields: dict[str, Operand]


class InfoEffect(EvolvingModel):
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


class ActionEffect(EvolvingModel):
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


class ToolSpec(FrozenModel):
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
