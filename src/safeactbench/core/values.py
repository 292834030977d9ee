"""Value comparison shared by the world (invariants), the ledger and the evaluator (SPEC §3).

Numbers compare numerically (119 == 119.00), strings exactly after trimming, booleans only with
booleans, at every depth of an object or array. Nothing here is fuzzy.

JSON has one number type. Tools that re-serialise a log keep the value of a number but not its
spelling: jq and JavaScript read every number as an IEEE-754 double, so `75.0` comes back as `75`,
`1e16` as `10000000000000000`, `-0.0` as `0`, and an integer beyond 2^53 rounded to the nearest
double (RFC 8259 §6: that is the precision JSON interoperates at). Everything here that compares
or renders a number therefore depends only on its double value, never on its spelling.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_EXACT_INTEGER = 2**53  # beyond it not every integer is a double; JSON tools round such integers


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def values_equal(a: Any, b: Any) -> bool:
    """Equality of two argument or field values (SPEC §3), one rule at every depth: numbers
    numerically (`119` == `119.00`), strings exactly after trimming, a boolean only with a boolean
    (`true` != `1`), objects by key set and values, arrays elementwise. Iterative, so nesting
    cannot exhaust the stack."""
    return _equal(a, b, trim=True)


def _equal(a: Any, b: Any, *, trim: bool) -> bool:
    """The one walk behind `values_equal` (strings trimmed) and `json_equal` (strings exact)."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif is_number(x) or is_number(y):
            if not (is_number(x) and is_number(y) and same_number(x, y)):
                return False
        elif isinstance(x, str) or isinstance(y, str):
            if not (isinstance(x, str) and isinstance(y, str) and (x.strip() == y.strip() if trim else x == y)):
                return False
        elif isinstance(x, dict) or isinstance(y, dict):
            if not (isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys()):
                return False
            pending.extend((value, y[key]) for key, value in x.items())
        elif isinstance(x, list | tuple) or isinstance(y, list | tuple):
            if not (isinstance(x, list | tuple) and isinstance(y, list | tuple) and len(x) == len(y)):
                return False
            pending.extend(zip(x, y, strict=True))
        elif type(x) is not type(y) or x != y:
            return False
    return True


def is_blank(value: Any) -> bool:
    """No value at all, by the rule `values_equal` compares with: null, a string of whitespace only,
    an empty array or object (an agent's `Choice` must be none of these)."""
    if isinstance(value, str):
        return not value.strip()
    return value is None or (isinstance(value, list | tuple | dict) and not value)


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


def same_number(a: int | float, b: int | float) -> bool:
    """Numeric equality at the precision JSON keeps: equal values, or the same double."""
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except OverflowError:  # an integer beyond any double: only an exactly equal value is the same
        return False


_JSON_TEXT = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values (string keys, acyclic) as values, not as text: numbers numerically
    (`75` == `75.0`, and integers beyond 2^53 by their double), a boolean never equals a number
    (`true` != `1`), strings exactly (untrimmed), objects by key set and values, arrays elementwise.
    Iterative, so hostile nesting cannot exhaust the stack."""
    try:
        if _JSON_TEXT(a) == _JSON_TEXT(b):
            return True  # the common case, at C speed: the same JSON text is the same value
    except (TypeError, ValueError, RecursionError):  # NaN, non-JSON objects, nesting past the C limit
        pass
    return _equal(a, b, trim=False)


def number_text(value: int | float) -> str:
    """A number as text that depends only on its double value, so it reads the same however a JSON
    tool re-spelt it: integral values within ±2^53 without a fraction (`75.0` -> `75`, `-0.0` ->
    `0`), every other value as the shortest repr of its double (`0.1`, `1e+21`)."""
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any double (never an argument: the world refuses it)
        try:
            return str(value)
        except ValueError:  # more digits than Python converts
            return f"<an integer of {int(value).bit_length()} bits>"
    if math.isfinite(number) and number.is_integer() and abs(number) <= MAX_EXACT_INTEGER:
        return str(int(number))
    return repr(number)


def describe(value: Any) -> str:
    """Short rendering for findings: strings quoted, numbers by value (`75.0` and `75` read `75`)."""
    if isinstance(value, str):
        return f"'{value}'"
    if value is None:
        return "(missing)"
    if is_number(value):
        return number_text(value)
    return str(value)


# ---------------------------------------------------------------------------- extent of JSON data


def extent_problem(value: Any, *, max_depth: int, max_size: int) -> str | None:
    """None when `value` (JSON data) nests at most `max_depth` arrays/objects deep and its compact
    JSON text is at most `max_size` characters; otherwise what it exceeds.

    Iterative, and every container is charged for its separators before its items are looked at, so
    the work is bounded by the limits: absurd nesting, width or shared sub-structures (a list holding
    one list a million times) cost no more than data of the limit's size. The size counted is a lower
    bound of the text's length (string characters and quotes, one character per other scalar,
    brackets and separators), so data that passes here may still be refused as text, never the reverse.
    """
    containers = dict | list | tuple
    if not isinstance(value, containers):
        size = len(value) + 2 if isinstance(value, str) else 1
        return f"larger than {max_size} characters of JSON" if size > max_size else None
    size = 1  # the opening bracket; every container's own is charged as an item of its parent
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        container, depth = pending.pop()
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        size += max(2 * len(container), 1)  # a character per item, the separators, the closing bracket
        if size > max_size:
            return f"larger than {max_size} characters of JSON"
        if isinstance(container, dict):
            size += sum(len(key) + 3 if type(key) is str else 3 for key in container)  # "key":
            children: Any = container.values()
        else:
            children = container
        for child in children:
            if type(child) is str:  # `type is` before isinstance: this loop is the evaluator's hot path
                size += len(child) + 1  # its quotes, less the character already charged
            elif isinstance(child, containers):
                pending.append((child, depth + 1))
            elif isinstance(child, str):
                size += len(child) + 1
        if size > max_size:
            return f"larger than {max_size} characters of JSON"
    return None


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}


def text_extent_problem(text: str | bytes, *, max_depth: int, max_size: int) -> str | None:
    """`extent_problem` for JSON text, before it is parsed: its length (characters, or bytes for
    bytes) and its bracket nesting outside strings. Regular expressions and C-level iteration only,
    so a 30 MB text takes a fraction of a second. Text that is not JSON may be misjudged, but then
    it is refused by the parser anyway."""
    if len(text) > max_size:
        return f"larger than {max_size} characters of JSON"
    # latin-1 maps bytes 1:1 to characters; quotes, backslashes and brackets are ASCII and never
    # occur inside a multi-byte UTF-8 sequence, so the scan is exact without decoding UTF-8
    chars = text.decode("latin-1") if isinstance(text, bytes) else text
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", chars))
    if max(accumulate(map(_NESTING.__getitem__, brackets)), default=0) > max_depth:
        return f"nested deeper than {max_depth} levels"
    return None
