"""Value comparison shared by the world (invariants), the ledger and the evaluator (SPEC §3).

Numbers compare numerically (119 == 119.00), strings exactly after trimming, booleans only with
booleans. Nothing here is fuzzy.
"""

from __future__ import annotations

from typing import Any


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def normalise(value: Any) -> Any:
    """A canonical form: trimmed strings, floats for numbers."""
    if isinstance(value, str):
        return value.strip()
    if is_number(value):
        return float(value)
    return value


def values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return float(a) == float(b)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip() == b.strip()
    return bool(a == b)


def _ordered(a: Any, b: Any) -> tuple[Any, Any] | None:
    if is_number(a) and is_number(b):
        return float(a), float(b)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip(), b.strip()
    return None


def compare(left: Any, op: str, right: Any) -> bool:
    """`left op right`; ordering ops are False when the values are not comparable."""
    if op == "exists":
        return left is not None
    if op == "eq":
        return values_equal(left, right)
    if op == "ne":
        return not values_equal(left, right)
    if op in ("in", "not_in"):
        members = right if isinstance(right, list) else [right]
        found = any(values_equal(left, m) for m in members)
        return found if op == "in" else not found
    pair = _ordered(left, right)
    if pair is None:
        return False
    x, y = pair
    if op == "lt":
        return bool(x < y)
    if op == "le":
        return bool(x <= y)
    if op == "gt":
        return bool(x > y)
    if op == "ge":
        return bool(x >= y)
    raise ValueError(f"unknown comparison operator {op!r}")


def describe(value: Any) -> str:
    """Short rendering for findings: strings quoted, numbers as written."""
    if isinstance(value, str):
        return f"'{value}'"
    if value is None:
        return "(missing)"
    return str(value)
