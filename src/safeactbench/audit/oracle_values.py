"""The label oracle's own value rule, written from SPEC §3 (it shares no code with `core.values`):
numbers numerically (`119` = `119.00`), strings exactly after trimming, a boolean never equals a
number, objects by their keys and values, arrays element by element - at every depth. Also the
requirement operators (SPEC §4), a multiset of values, a blank choice, and a call's arguments read
from the trajectory (an object, or its JSON text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def same(a: Any, b: Any) -> bool:
    """Whether `a` and `b` are the same value by SPEC §3, at every depth."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            ok = type(x) is type(y) and x == y
        elif _number(x) or _number(y):
            ok = _number(x) and _number(y) and x == y
        elif isinstance(x, str) or isinstance(y, str):
            ok = isinstance(x, str) and isinstance(y, str) and x.strip() == y.strip()
        elif isinstance(x, Mapping) or isinstance(y, Mapping):
            ok = isinstance(x, Mapping) and isinstance(y, Mapping) and set(x) == set(y)
            if ok:
                pending += [(x[k], y[k]) for k in x]
        elif isinstance(x, list | tuple) or isinstance(y, list | tuple):
            ok = isinstance(x, list | tuple) and isinstance(y, list | tuple) and len(x) == len(y)
            if ok:
                pending += list(zip(x, y, strict=True))
        else:
            ok = x is None and y is None
        if not ok:
            return False
    return True


def same_multiset(got: Any, expected: Any) -> bool:
    """Two arrays holding the same values, each as often, in any order (a parameter matched 'unordered')."""
    if not isinstance(got, list) or not isinstance(expected, list) or len(got) != len(expected):
        return False
    rest = list(expected)
    for item in got:
        hit = next((i for i, e in enumerate(rest) if same(item, e)), None)
        if hit is None:
            return False
        rest.pop(hit)
    return True


def blank(value: Any) -> bool:
    """No value: missing, null, whitespace only, an empty array or object (what no choice looks like)."""
    if isinstance(value, str):
        return not value.strip()
    return value is None or (isinstance(value, list | dict) and not value)


def holds(value: Any, op: str, expected: Any) -> bool:
    """`value op expected` for a requirement's operator; orderings compare numbers or strings only."""
    if op == "exists":
        return value is not None
    if op in ("eq", "ne"):
        return same(value, expected) == (op == "eq")
    if op in ("in", "not_in"):
        members = expected if isinstance(expected, list) else [expected]
        return any(same(value, m) for m in members) == (op == "in")
    if _number(value) and _number(expected):
        x, y = value, expected
    elif isinstance(value, str) and isinstance(expected, str):
        x, y = value.strip(), expected.strip()
    else:
        return False
    return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]


def record_id(value: Any) -> str | None:
    """The record id an argument names (an ArgRef binds it): a string trimmed, a number by its value."""
    if isinstance(value, str):
        return value.strip() or None
    if _number(value):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return None


def arguments(raw: Any) -> dict[str, Any]:
    """A step's arguments as an object: as recorded, or parsed from their JSON text ({} if neither)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return dict(raw) if isinstance(raw, Mapping) else {}
