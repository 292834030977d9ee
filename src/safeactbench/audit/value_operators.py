"""Mutation operators on the values inside an action's arguments: a value inside an object or array
changed, an unordered set with an element dropped, added or changed, and the same values respelt
(numbers as floats or integers, strings padded with whitespace) at every depth."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from ..core.model import ResultRef
from ..core.tool_spec import ActionEffect, Param
from ..core.values import is_number
from .calls import Call
from .context import ORACLE, Context, Proposal, with_args
from .oracle_values import same

Path = tuple[str | int, ...]
_LEAVES_PER_ARGUMENT = 6  # enough to reach every depth of the suite's objects, few enough to stay cheap


def is_result_ref(value: Any) -> bool:
    """A result reference: as a model object, or written inside an object or array."""
    return isinstance(value, ResultRef) or (
        isinstance(value, dict)
        and set(value) == {"result_of", "key"}
        and all(isinstance(v, str) for v in value.values())
    )


def leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """(path, value) of every scalar and result reference inside an object or array, depth first."""
    if isinstance(value, dict) and not is_result_ref(value):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, (*path, i))
    elif path:
        yield path, value


def containers(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """(path, object or array) of `value` itself and of every object and array inside it."""
    if isinstance(value, dict) and not is_result_ref(value):
        yield path, value
        for key, item in value.items():
            yield from containers(item, (*path, key))
    elif isinstance(value, list):
        yield path, value
        for i, item in enumerate(value):
            yield from containers(item, (*path, i))


def replaced(value: Any, path: Path, new: Any) -> Any:
    """`value` with the item at `path` replaced by `new` (copies along the path only)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    out = list(value)
    out[head] = replaced(value[head], rest, new)  # type: ignore[index]
    return out


def mapped(value: Any, change: Callable[[Any], Any]) -> Any:
    """`value` with `change` applied to every scalar at every depth (result references kept)."""
    if is_result_ref(value):
        return value
    if isinstance(value, dict):
        return {k: mapped(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [mapped(v, change) for v in value]
    return change(value)


def _fabricated(ctx: Context, value: Any) -> str:
    ref = value if isinstance(value, ResultRef) else ResultRef(**value)
    text = str(ctx.result_value(ref) or "FAKE-ID")
    return text[:-1] + ("B" if text.endswith("A") else "A")


def other_leaf(ctx: Context, leaf: Any, enum: list[str] | None = None) -> Any:
    """A different value of the same kind: a number + 1, a negated boolean, another (enum) string,
    a fabricated id for a result reference."""
    if is_result_ref(leaf):
        return _fabricated(ctx, leaf)
    if isinstance(leaf, bool):
        return not leaf
    if is_number(leaf):
        return leaf + 1
    if isinstance(leaf, str):
        others = [e for e in enum or [] if e != leaf]
        return others[0] if others else f"{leaf}-X" if leaf.strip() else "audit"
    return "audit"  # null


def _param(ctx: Context, call: Call, name: str) -> Param | None:
    return next((p for p in ctx.tools[call.tool].params if p.name == name), None)


def _structured(ctx: Context) -> Iterator[tuple[int, Call, str, Any, Param]]:
    """(call index, call, argument, value, parameter) of every object or array argument of an action
    that the agent does not choose."""
    for j in ctx.actions:
        call = ctx.calls[j]
        chosen = ctx.chosen(call.action_id)
        for name, value in call.arguments.items():
            param = _param(ctx, call, name)
            if param is not None and name not in chosen and isinstance(value, dict | list) and not is_result_ref(value):
                yield j, call, name, value, param


def _variant(ctx: Context, j: int, changes: dict[str, Any]) -> tuple[Call, ...]:
    calls = list(ctx.calls)
    calls[j] = with_args(ctx.calls[j], **changes)
    return tuple(calls)


# -- invalidating operators labelled by construction --------------------------------------------


def _nested_changes(ctx: Context, value: Any, param: Param) -> Iterator[tuple[str, Any]]:
    """(what changed, the changed value) for `value`, an object or array argument."""
    unordered = param.match == "unordered"
    enum = param.enum if param.type == "array" else None
    inner = [(path, leaf) for path, leaf in leaves(value) if not (unordered and len(path) == 1)]
    for path, leaf in inner[:_LEAVES_PER_ARGUMENT]:
        new = other_leaf(ctx, leaf, enum if len(path) == 1 else None)
        yield f"{list(path)}={leaf!r} -> {new!r}", replaced(value, path, new)
    for path, item in containers(value):
        if isinstance(item, dict):
            if item:
                key = next(iter(item))
                yield (
                    f"{list(path)} without {key!r}",
                    replaced(value, path, {k: v for k, v in item.items() if k != key}),
                )
            yield f"{list(path)} with a key more", replaced(value, path, {**item, "audit_extra": 1})
        elif not (unordered and not path):  # an ordered array: its order and length matter
            if not same(item, item[::-1]):
                yield f"{list(path)} reversed", replaced(value, path, item[::-1])
            if item:
                yield f"{list(path)} shortened", replaced(value, path, item[:-1])
                yield f"{list(path)} lengthened", replaced(value, path, [*item, item[-1]])


def op_nested_argument(ctx: Context) -> Iterator[Proposal]:
    """A value inside an object or array argument changed; an object's key dropped or added; an
    ordered array reversed, shortened or lengthened. Inside an unordered set, only within its elements."""
    for j, call, name, value, param in _structured(ctx):
        for what, new in _nested_changes(ctx, value, param):
            note = f"{call.action_id}: {name}{what}"
            yield Proposal("nested_argument", "fail", note, _variant(ctx, j, {name: new}))


def op_set_element(ctx: Context) -> Iterator[Proposal]:
    """An unordered set (an array matched as a multiset) with one element dropped, one added, one changed."""
    for j, call, name, value, param in _structured(ctx):
        if param.match != "unordered" or not isinstance(value, list):
            continue
        enum = list(param.enum or [])
        missing = [e for e in enum if not any(same(e, v) for v in value)]
        where = f"{call.action_id}: {name}"
        if value:
            yield Proposal("set_element", "fail", f"{where} without {value[0]!r}", _variant(ctx, j, {name: value[1:]}))
        if missing:
            extra: Any = missing[0]
        elif value and not enum and isinstance(value[0], str):
            extra = f"{value[0]}-X"
        else:  # a multiset: one element twice is another set
            extra = value[0] if value else (enum[0] if enum else "audit")
        yield Proposal(
            "set_element", "fail", f"{where} with {extra!r} added", _variant(ctx, j, {name: [*value, extra]})
        )
        if value:
            new = missing[0] if missing else other_leaf(ctx, value[0], enum)
            if isinstance(value[0], dict | list) and not is_result_ref(value[0]):
                path, leaf = next(leaves(value[0]), ((), None))
                new = replaced(value[0], path, other_leaf(ctx, leaf))
            note = f"{where}: {value[0]!r} -> {new!r}"
            yield Proposal("set_element", "fail", note, _variant(ctx, j, {name: [new, *value[1:]]}))


# -- valid variants -------------------------------------------------------------------------------


def _respelt_number(value: Any) -> Any:
    if is_number(value) and float(value).is_integer():
        return float(value) if isinstance(value, int) else int(value)
    return value


def _spelling(value: Any) -> str:
    return json.dumps(value, default=repr)


def _padded(value: Any) -> Any:
    return f"  {value}\t" if isinstance(value, str) else value


def _declared(ctx: Context, call: Call) -> set[str]:
    """The arguments the environment resolves as declared: ids it looks up, enum values it checks."""
    tool = ctx.tools[call.tool]
    effect = tool.effect
    assert isinstance(effect, ActionEffect)
    return {n for n in (effect.target_param, *effect.references) if n} | {p.name for p in tool.params if p.enum}


def _padded_args(call: Call, names: set[str]) -> dict[str, Any]:
    """The arguments among `names` whose strings (at any depth) padding changes, padded."""
    out = {k: mapped(v, _padded) for k, v in call.arguments.items() if k in names and not isinstance(v, ResultRef)}
    return {k: v for k, v in out.items() if v != call.arguments[k]}


def op_respelled_arguments(ctx: Context) -> Iterator[Proposal]:
    """The same arguments as another writer spells them: every integral number inside an object or
    array as a float (or the reverse; top-level numbers are `numeric_format`'s), every string padded
    with whitespace at every depth - but for the ids and enum values the environment resolves."""
    for j in ctx.actions:
        call = ctx.calls[j]
        nested = {k: v for k, v in call.arguments.items() if isinstance(v, dict | list) and not is_result_ref(v)}
        numbers = {k: mapped(v, _respelt_number) for k, v in nested.items()}
        numbers = {k: v for k, v in numbers.items() if _spelling(v) != _spelling(nested[k])}
        if numbers:
            note = f"{call.action_id}: numbers inside {sorted(numbers)} as float / int"
            yield Proposal("respelled_arguments", "pass", note, _variant(ctx, j, numbers))
        padded = _padded_args(call, set(call.arguments) - _declared(ctx, call))
        if padded:
            note = f"{call.action_id}: strings of {sorted(padded)} padded"
            yield Proposal("respelled_arguments", "pass", note, _variant(ctx, j, padded))


def op_padded_declared(ctx: Context) -> Iterator[Proposal]:
    """The ids the environment looks up and the enum values it checks, padded with whitespace: by SPEC
    §3 the same strings, but the environment resolves them as the tool declares them (the oracle
    reads whether it applied the call)."""
    for j in ctx.actions:
        call = ctx.calls[j]
        padded = _padded_args(call, _declared(ctx, call))
        if padded:
            note = f"{call.action_id}: {sorted(padded)} padded"
            yield Proposal("padded_declared_value", ORACLE, note, _variant(ctx, j, padded))
