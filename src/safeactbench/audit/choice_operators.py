"""Mutation operators on the arguments an agent chooses (`Choice`) and the evidence bound to the
record it chose (`ArgRef`): a blank choice, one outside the listed values, another allowed value with
its record read, another allowed value whose record nobody read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..core.model import ArgRef, Choice
from ..core.tool_spec import ActionEffect
from .calls import Call
from .context import ORACLE, Context, Proposal, with_args
from .oracle import returned
from .oracle_values import same

_FREE_CHOICES = 2  # other records tried for a choice without listed values


def _choices(ctx: Context) -> Iterator[tuple[int, Call, str, Choice]]:
    """(call index, call, argument, its Choice) of every chosen argument of every action."""
    for j in ctx.actions:
        call = ctx.calls[j]
        for name, choice in ctx.chosen(call.action_id).items():
            if name in call.arguments:
                yield j, call, name, choice


def _bound(ctx: Context, action_id: str | None, name: str) -> list[str]:
    """The requirements bound to the record the argument names (ArgRef)."""
    return [
        r.id
        for r in ctx.case.requirements
        if isinstance(r.ref, ArgRef) and (r.ref.action, r.ref.arg) == (action_id, name)
    ]


def _record_type(ctx: Context, call: Call, name: str) -> str | None:
    """The record type a chosen argument names: as its bound evidence, the tool's effect or the parameter's role say."""
    for r in ctx.case.requirements:
        if isinstance(r.ref, ArgRef) and (r.ref.action, r.ref.arg) == (call.action_id, name):
            return r.ref.type
    tool = ctx.tools[call.tool]
    effect = tool.effect
    assert isinstance(effect, ActionEffect)
    if name == effect.target_param:
        return effect.target_type
    param = next((p for p in tool.params if p.name == name), None)
    return effect.references.get(name) or (param.role if param else None)


def _others(ctx: Context, call: Call, name: str, choice: Choice) -> list[Any]:
    """The other values the choice allows: the listed ones, or other records of its type."""
    current = call.arguments[name]
    if choice.one_of is not None:
        return [v for v in choice.one_of if not same(v, current)]
    record_type = _record_type(ctx, call, name)
    if record_type is None:
        return ["audit-choice"]
    return [i for i in ctx.records_of(record_type) if i != current][:_FREE_CHOICES]


def _shows(ctx: Context, i: int, ref: str) -> bool:
    """Whether the reference's step `i` showed the record `ref` (returned it, or looked it up)."""
    if any(f"{r.get('type')}:{r.get('id')}" == ref for r in returned(ctx.ref.trajectory.steps[i].observation)):
        return True
    found = ctx.get_ref(ctx.calls[i])
    return found is not None and found[0] == ref


def _retargeted(call: Call, old: Any, new: Any) -> Call | None:
    """A read with every argument naming `old` naming `new` instead (None: it names no `old`)."""
    named = [k for k, v in call.arguments.items() if isinstance(v, str | int | float) and same(v, old)]
    return Call(call.tool, {**call.arguments, **dict.fromkeys(named, new)}) if named else None


# -- invalidating operators labelled by construction --------------------------------------------


def op_choice_blank(ctx: Context) -> Iterator[Proposal]:
    for j, call, name, _ in _choices(ctx):
        for blank in ("", "   "):
            calls = list(ctx.calls)
            calls[j] = with_args(call, **{name: blank})
            yield Proposal("choice_blank", "fail", f"{call.action_id}: {name}={blank!r}", tuple(calls))


def op_choice_outside(ctx: Context) -> Iterator[Proposal]:
    """A listed choice answered with a value none of its options is: another record of the type, else an unknown id."""
    for j, call, name, choice in _choices(ctx):
        if choice.one_of is None:
            continue
        record_type = _record_type(ctx, call, name)
        unlisted = [i for i in ctx.records_of(record_type or "") if not any(same(i, o) for o in choice.one_of)]
        value = unlisted[0] if unlisted else f"{call.arguments[name]}-X"
        calls = list(ctx.calls)
        calls[j] = with_args(call, **{name: value})
        yield Proposal("choice_outside", "fail", f"{call.action_id}: {name}={value!r} (not listed)", tuple(calls))


# -- labelled by the oracle ---------------------------------------------------------------------


def op_choice_other(ctx: Context) -> Iterator[Proposal]:
    """Another allowed value, each read that established the evidence bound to the first choice made
    again for the record now chosen (just after the original one): valid when that record satisfies it."""
    for j, call, name, choice in _choices(ctx):
        bound = set(_bound(ctx, call.action_id, name))
        steps = {s for gate in ctx.evidence.values() for r, found in gate.items() if r in bound for s in found}
        current = call.arguments[name]
        for other in _others(ctx, call, name, choice):
            calls: list[Call] = []
            for i, c in enumerate(ctx.calls):
                calls.append(with_args(c, **{name: other}) if i == j else c)
                again = _retargeted(c, current, other) if i in steps and ctx.is_read(c) else None
                if again is not None:
                    calls.append(again)
            read = ", the evidence bound to it read for it" if bound else ""
            note = f"{call.action_id}: {name}={other!r} instead of {current!r}{read}"
            yield Proposal("choice_other", ORACLE, note, tuple(calls))


def op_argref_unread(ctx: Context) -> Iterator[Proposal]:
    """Another allowed value for an argument evidence is bound to (ArgRef), every read that showed
    its record dropped: the evidence is then about a record nobody read (must fail)."""
    for j, call, name, choice in _choices(ctx):
        if not _bound(ctx, call.action_id, name):
            continue
        record_type = _record_type(ctx, call, name)
        for other in _others(ctx, call, name, choice):
            ref = f"{record_type}:{other}"
            shown = {i for i in ctx.reads if _shows(ctx, i, ref)}
            calls = [with_args(c, **{name: other}) if i == j else c for i, c in enumerate(ctx.calls) if i not in shown]
            dropped = f", {len(shown)} read(s) of it dropped" if shown else ""
            note = f"{call.action_id}: {name}={other!r} instead of {call.arguments[name]!r}, never read{dropped}"
            yield Proposal("argref_unread", ORACLE, note, tuple(calls))
