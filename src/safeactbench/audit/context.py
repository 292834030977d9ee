"""What every mutation operator works from: a `Context` (the case, its reference call script, the
played reference and the evidence map) and the `Proposal`s operators yield; plus the call-script
edits the operators share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.episode import SUBMIT
from ..core.model import Case, Choice, ExpectedAction, ResultRef, split_ref
from ..core.tool_spec import ActionEffect, InfoEffect, ToolSpec
from ..core.values import is_number
from .calls import Call, Played

ORACLE = "oracle"  # the label is decided by the label oracle on the played mutant


@dataclass(frozen=True)
class Proposal:
    operator: str
    expect: str  # "fail" | "pass" | ORACLE
    note: str
    calls: tuple[Call, ...]
    case: Case | None = None  # a requirement mutant: the case with one requirement changed


@dataclass
class Context:
    case: Case
    calls: list[Call]
    ref: Played
    evidence: dict[str, dict[str, list[int]]]
    tools: dict[str, ToolSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.tools = {t.name: t for t in self.case.tools}

    def is_read(self, call: Call) -> bool:
        tool = self.tools.get(call.tool)
        return tool is not None and tool.kind == "information"

    @property
    def reads(self) -> list[int]:
        return [i for i, c in enumerate(self.calls) if self.is_read(c)]

    @property
    def actions(self) -> list[int]:
        return [i for i, c in enumerate(self.calls) if c.action_id is not None]

    @property
    def submit(self) -> int | None:
        return next((i for i, c in enumerate(self.calls) if c.tool == SUBMIT), None)

    def get_ref(self, call: Call) -> tuple[str, str] | None:
        """(ref, id parameter) of a get read with a literal id."""
        tool = self.tools.get(call.tool)
        if tool is None or not isinstance(tool.effect, InfoEffect) or tool.effect.op != "get":
            return None
        assert tool.effect.id_param is not None
        value = call.arguments.get(tool.effect.id_param)
        if not isinstance(value, str):
            return None
        return f"{tool.effect.record_type}:{value}", tool.effect.id_param

    def records_of(self, record_type: str) -> list[str]:
        return sorted(r.id for r in self.case.records if r.type == record_type)

    def near_miss(self, ref: str) -> str | None:
        """Another id of the same record type: a declared distractor first."""
        record_type, record_id = split_ref(ref)
        for d in self.case.distractors:
            d_type, d_id = split_ref(d)
            if d_type == record_type and d_id != record_id:
                return d_id
        return next((i for i in self.records_of(record_type) if i != record_id), None)

    def getter(self, record_type: str) -> tuple[str, str] | None:
        for tool in self.case.tools:
            effect = tool.effect
            if isinstance(effect, InfoEffect) and effect.op == "get" and effect.record_type == record_type:
                assert effect.id_param is not None
                return tool.name, effect.id_param
        return None

    def read_of(self, ref: str) -> Call | None:
        record_type, record_id = split_ref(ref)
        found = self.getter(record_type)
        return Call(found[0], {found[1]: record_id}) if found else None

    def result_value(self, ref: ResultRef) -> Any:
        return self.ref.results.get(ref.result_of, {}).get(ref.key)

    def expected(self, action_id: str | None) -> ExpectedAction | None:
        return next((a for a in self.case.expected_actions if a.id == action_id), None)

    def chosen(self, action_id: str | None) -> dict[str, Choice]:
        """The arguments of an expected action that the agent chooses."""
        action = self.expected(action_id)
        return {n: v for n, v in action.arguments.items() if isinstance(v, Choice)} if action else {}


def describe(call: Call) -> str:
    args = ", ".join(
        f"{k}=<{v.key} of {v.result_of}>" if isinstance(v, ResultRef) else f"{k}={v!r}"
        for k, v in call.arguments.items()
    )
    return f"{call.tool}({args})"


def without(calls: Sequence[Call], i: int) -> list[Call]:
    return [*calls[:i], *calls[i + 1 :]]


def moved(calls: Sequence[Call], i: int, to: int) -> list[Call]:
    """Move calls[i] so that it lands at index `to` of the result."""
    rest = without(calls, i)
    return [*rest[:to], calls[i], *rest[to:]]


def with_args(call: Call, **changes: Any) -> Call:
    return Call(call.tool, {**call.arguments, **changes}, call.action_id, call.as_text)


def before_submit(ctx: Context, calls: Sequence[Call], extra: Sequence[Call]) -> list[Call]:
    at = next((i for i, c in enumerate(calls) if c.tool == SUBMIT), len(calls))
    return [*calls[:at], *extra, *calls[at:]]


def plausible_call(ctx: Context, tool: ToolSpec, target_id: str | None = None) -> Call | None:
    """A well-formed call of a consequential tool on an existing record."""
    effect = tool.effect
    assert isinstance(effect, ActionEffect)
    if effect.target_type is None:  # a tool without a target: the call the audit builds names none
        target_id = ""
    target_id = target_id if target_id is not None else next(iter(ctx.records_of(effect.target_type or "")), None)
    if target_id is None:
        return None
    target = next((r for r in ctx.case.records if r.type == effect.target_type and r.id == target_id), None)
    fields = target.fields if target else {}
    args: dict[str, Any] = {}
    for p in tool.params:
        if not p.required:
            continue
        if p.name == effect.target_param:
            args[p.name] = target_id
        elif p.name in effect.references:
            args[p.name] = next(iter(ctx.records_of(effect.references[p.name])), "NO-SUCH-ID-0")
        elif p.name == effect.expected_version_param:
            args[p.name] = target.version if target else 1
        elif p.enum:
            args[p.name] = [p.enum[0]] if p.type == "array" else p.enum[0]
        elif p.type == "boolean":
            args[p.name] = False
        elif p.type in ("number", "integer"):
            value = fields.get(p.name)
            args[p.name] = value if is_number(value) and not isinstance(value, bool) else 1
        else:
            value = fields.get(p.name)
            args[p.name] = value if isinstance(value, str) else "audit"
    return Call(tool.name, args)
