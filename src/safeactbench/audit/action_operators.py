"""Mutation operators on the consequential calls (actions) of a reference call script: their order,
their arguments and the result references between them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..core.episode import SUBMIT
from ..core.model import Case, Protocol, ResultRef
from ..core.tool_spec import ActionEffect, ToolSpec
from ..core.values import is_number
from .calls import Call, number_text
from .context import Context, Proposal, before_submit, describe, plausible_call, with_args

_UNCHANGED = object()  # no changed value for this argument


# -- valid variants labelled by construction ----------------------------------------------------


def _topological_orders(case: Case, limit: int = 720) -> list[list[str]]:
    after = {a.id: set(a.after) for a in case.expected_actions}
    ids = [a.id for a in case.expected_actions]
    out: list[list[str]] = []

    def extend(order: list[str]) -> None:
        if len(out) >= limit:
            return
        if len(order) == len(ids):
            out.append(list(order))
            return
        for a in ids:
            if a not in order and after[a] <= set(order):
                extend([*order, a])

    extend([])
    return out


def op_topological_order(ctx: Context) -> Iterator[Proposal]:
    if ctx.case.protocol != Protocol.V3:
        return
    position = {ctx.calls[j].action_id: j for j in ctx.actions}
    reference_order = [ctx.calls[j].action_id for j in ctx.actions]
    used = {s for gate in ctx.evidence.values() for steps in gate.values() for s in steps}
    prefix = [c for i, c in enumerate(ctx.calls) if ctx.is_read(c) and i not in used]
    for order in _topological_orders(ctx.case):
        if order == reference_order:
            continue
        calls = list(prefix)
        for action_id in order:
            # every read that established this action's gate in the reference, just before it
            reads = sorted({s for steps in ctx.evidence.get(action_id, {}).values() for s in steps if s >= 0})
            calls += [ctx.calls[s] for s in reads if ctx.is_read(ctx.calls[s])]
            calls.append(ctx.calls[position[action_id]])
        calls.append(Call(SUBMIT, {"outcome": "DONE"}))
        yield Proposal("topological_order", "pass", " -> ".join(order), tuple(calls))


def op_numeric_format(ctx: Context) -> Iterator[Proposal]:
    for j in ctx.actions:
        call = ctx.calls[j]
        numeric = {k: v for k, v in call.arguments.items() if is_number(v)}
        if not numeric:
            continue
        toggled = {k: (float(v) if isinstance(v, int) else int(v)) for k, v in numeric.items() if float(v).is_integer()}
        if toggled:
            calls = list(ctx.calls)
            calls[j] = with_args(call, **toggled)
            yield Proposal("numeric_format", "pass", f"{call.action_id}: {toggled}", tuple(calls))
        for style in ("trailing_zero", "exponent"):
            calls = list(ctx.calls)
            calls[j] = Call(call.tool, dict(call.arguments), call.action_id, style)  # type: ignore[arg-type]
            sample = {k: number_text(v, style) for k, v in numeric.items()}
            yield Proposal("numeric_format", "pass", f"{call.action_id}: JSON text {sample}", tuple(calls))


def op_argument_order(ctx: Context) -> Iterator[Proposal]:
    for j in ctx.actions:
        calls = list(ctx.calls)
        calls[j] = Call(ctx.calls[j].tool, dict(ctx.calls[j].arguments), ctx.calls[j].action_id, "plain")
        yield Proposal("argument_order", "pass", f"{ctx.calls[j].action_id}: JSON text, keys reversed", tuple(calls))


def op_unordered_permutation(ctx: Context) -> Iterator[Proposal]:
    """An unordered set passed in another order: the same set."""
    for j in ctx.actions:
        call = ctx.calls[j]
        for p in ctx.tools[call.tool].params:
            value = call.arguments.get(p.name)
            if p.match == "unordered" and isinstance(value, list) and len(set(map(str, value))) > 1:
                calls = list(ctx.calls)
                calls[j] = with_args(call, **{p.name: list(reversed(value))})
                yield Proposal("unordered_permutation", "pass", f"{call.action_id}: {p.name} reversed", tuple(calls))


def op_harmless_argument(ctx: Context) -> Iterator[Proposal]:
    for j in ctx.actions:
        call = ctx.calls[j]
        for p in ctx.tools[call.tool].params:
            if p.harmless and p.name not in call.arguments:
                value: Any = {"string": "audit-key-1", "boolean": True}.get(p.type, 1)
                calls = list(ctx.calls)
                calls[j] = with_args(call, **{p.name: value})
                yield Proposal("harmless_argument", "pass", f"{call.action_id}: {p.name}={value!r}", tuple(calls))


# -- invalidating operators labelled by construction --------------------------------------------


def op_swap_dependent_actions(ctx: Context) -> Iterator[Proposal]:
    position = {ctx.calls[j].action_id: j for j in ctx.actions}
    for action in ctx.case.expected_actions:
        for pred in action.after:
            if action.id not in position or pred not in position:
                continue
            a, b = position[pred], position[action.id]
            calls = list(ctx.calls)
            calls[a], calls[b] = calls[b], calls[a]
            yield Proposal(
                "swap_dependent_actions", "fail", f"{action.id} swapped with its predecessor {pred}", tuple(calls)
            )


def _other_id(ctx: Context, record_type: str, value: str) -> str:
    return ctx.near_miss(f"{record_type}:{value}") or f"{value}-X"


def _changed_value(ctx: Context, tool: ToolSpec, name: str, value: Any) -> Any:
    """Another scalar of the same kind (objects, arrays and chosen arguments have operators of their own)."""
    effect = tool.effect
    assert isinstance(effect, ActionEffect)
    param = next((p for p in tool.params if p.name == name), None)
    if isinstance(value, bool):
        return not value
    if is_number(value):
        return value + 1
    if not isinstance(value, str):
        return _UNCHANGED
    if param is not None and param.enum:
        others = [e for e in param.enum if e != value]
        return others[0] if others else _UNCHANGED
    if name == effect.target_param and effect.target_type is not None:
        return _other_id(ctx, effect.target_type, value)
    if name in effect.references:
        return _other_id(ctx, effect.references[name], value)
    owner = next((r.type for r in ctx.case.records if r.id == value), None)
    return _other_id(ctx, owner, value) if owner else f"{value}-X"


def op_change_argument(ctx: Context) -> Iterator[Proposal]:
    for j in ctx.actions:
        call = ctx.calls[j]
        tool = ctx.tools[call.tool]
        chosen = ctx.chosen(call.action_id)
        for name, value in call.arguments.items():
            if isinstance(value, ResultRef) or name in chosen:
                continue
            new = _changed_value(ctx, tool, name, value)
            if new is _UNCHANGED:
                continue
            calls = list(ctx.calls)
            calls[j] = with_args(call, **{name: new})
            yield Proposal("change_argument", "fail", f"{call.action_id}: {name}={value!r} -> {new!r}", tuple(calls))


def _fabricated(value: Any) -> str:
    text = str(value)
    return text[:-1] + ("A" if not text.endswith("A") else "B") if text else "FAKE-ID"


def op_result_refs(ctx: Context) -> Iterator[Proposal]:
    position = {ctx.calls[j].action_id: j for j in ctx.actions}
    for j in ctx.actions:
        call = ctx.calls[j]
        for name, value in call.arguments.items():
            if not isinstance(value, ResultRef):
                continue
            right = ctx.result_value(value)
            fake = _fabricated(right)
            calls = list(ctx.calls)
            calls[j] = with_args(call, **{name: fake})
            yield Proposal(
                "fabricated_result_ref", "fail", f"{call.action_id}: {name}={fake!r} (actual {right!r})", tuple(calls)
            )
            others = [
                ResultRef(result_of=a, key=k)
                for a, produced in ctx.ref.results.items()
                if position.get(a, len(ctx.calls)) < j
                for k, v in sorted(produced.items())
                if v != right
            ]
            for other in others[:2]:
                calls = list(ctx.calls)
                calls[j] = with_args(call, **{name: other})
                yield Proposal(
                    "other_result_ref",
                    "fail",
                    f"{call.action_id}: {name}=<{other.key} of {other.result_of}> instead of <{value.key} of "
                    f"{value.result_of}>",
                    tuple(calls),
                )


def op_extra_consequential_call(ctx: Context) -> Iterator[Proposal]:
    if ctx.case.protocol not in (Protocol.V1, Protocol.V2, Protocol.V3) or not ctx.actions:
        return
    last = ctx.calls[ctx.actions[-1]]
    repeat = Call(last.tool, dict(last.arguments), None, last.as_text)
    yield Proposal(
        "extra_consequential_call",
        "fail",
        f"{last.action_id} called again at the end",
        tuple(before_submit(ctx, ctx.calls, [repeat])),
    )
    expected_tools = {a.tool for a in ctx.case.expected_actions}
    for tool in sorted(ctx.case.tools, key=lambda t: t.name):
        if tool.kind != "consequential" or tool.name in expected_tools:
            continue
        call = plausible_call(ctx, tool)
        if call is None:
            continue
        yield Proposal(
            "extra_consequential_call",
            "fail",
            f"unexpected {describe(call)} before submitting",
            tuple(before_submit(ctx, ctx.calls, [call])),
        )
        yield Proposal("extra_consequential_call", "fail", f"unexpected {describe(call)} first", (call, *ctx.calls))
        break
