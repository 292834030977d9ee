"""The hidden world of one episode: records and the semantics of the domain's tools.

Every observation is a JSON object with a `status`:
- information tools: `ok` with `record` (get) or `records` + `count` (search), or `error`;
- consequential tools: `applied` with `result` and the changed/created `records`, or `rejected`
  with a `code` (invalid arguments, unknown ids, version conflicts and business invariants).
A rejected or failed call never changes the world.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from .model import Case, WorldEvent, make_ref
from .tool_spec import ActionEffect, InfoEffect, Operand, Param, ToolSpec
from .values import MAX_EXACT_INTEGER, compare, is_number, number_text

Observation = dict[str, Any]


class InvalidArguments(ValueError):
    """Arguments that do not fit the tool's parameters; the message names the argument."""


def error(code: str, message: str) -> Observation:
    return {"status": "error", "error": {"code": code, "message": message}}


def rejected(code: str, message: str) -> Observation:
    return {"status": "rejected", "code": code, "message": message}


# Limits on what an agent sends (SPEC §9). Tools take flat objects of short scalars, so nothing
# genuine comes near them; they keep a hostile agent from growing the trajectory, the stored record
# and the report without bound (three 10 MiB calls used to make a 63 MB record).
MAX_ARGUMENT_DEPTH = 32  # tools take flat objects; anything nested deeper is not an argument
MAX_ARGUMENT_BYTES = 64 * 1024  # UTF-8 bytes of the arguments' JSON text (compact, for an object)
MAX_TOOL_NAME_CHARS = 128  # catalog tool names are short identifiers

# Arguments over the size limit are recorded as this marker instead of themselves, and executed as
# recorded: `parse_arguments` answers the marker with the size error, so the live call and its
# replay give the same observation. The marker is not JSON, so no arguments a tool could accept
# (a JSON object, or its text) are ever taken for one; an agent that sends the marker text itself
# gets the error its words claim, where any other non-JSON text gets INVALID_ARGUMENTS as well.
_OVERSIZED = "<arguments of {size} bytes exceed the {limit}-byte limit>"
_OVERSIZED_MARKER = re.compile(r"<arguments of (\d{1,20}) bytes exceed the (\d{1,20})-byte limit>")


def utf8_size(text: str) -> int:
    """Bytes of `text` in UTF-8 (a lone surrogate counts as the '?' it is recorded as)."""
    return len(text.encode("utf-8", "replace"))


def oversized_arguments(size: int) -> str:
    """The recorded stand-in for arguments of `size` bytes (> MAX_ARGUMENT_BYTES)."""
    return _OVERSIZED.format(size=size, limit=MAX_ARGUMENT_BYTES)


def over_long_tool_name(length: int) -> str:
    """The recorded stand-in for a tool name of `length` characters (> MAX_TOOL_NAME_CHARS). No tool
    has such a name, so it is answered UNKNOWN_TOOL like every unusable name, naming the limit."""
    return f"<tool name of {length} characters exceeds the {MAX_TOOL_NAME_CHARS}-character limit>"


def repair_text(text: str) -> str:
    """`text` with lone surrogates (not encodable, so not storable as JSON) replaced by '?'."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def copy_data(value: Any) -> Any:
    """A deep copy of JSON data (what record fields and observations hold): dicts and lists are
    copied, everything else is immutable and shared. Several times cheaper than `copy.deepcopy`,
    which was a third of the evaluator's time (docs/performance.md)."""
    if isinstance(value, dict):
        return {key: copy_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_data(item) for item in value]
    if isinstance(value, tuple):
        return tuple(copy_data(item) for item in value)
    return value


def json_safe(value: Any, depth: int = 0) -> Any:
    """`value` as plain JSON data (strings repaired), or InvalidArguments naming what JSON cannot
    carry: non-finite or out-of-range numbers, non-string keys, other types, excessive nesting.

    An integer beyond ±2^53 becomes the double it rounds to: that is the value every JSON tool
    (jq, JavaScript) reads back from a log, so the call executed live is the call a re-scoring of
    the re-serialised log executes (a world that looked records up by the exact integer would not
    find the same record after the log passed through jq)."""
    if depth > MAX_ARGUMENT_DEPTH:
        raise InvalidArguments(f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise InvalidArguments(f"number {number_text(value)[:40]} is out of range")
        return number if isinstance(value, int) and abs(value) > MAX_EXACT_INTEGER else value
    if isinstance(value, str):
        return repair_text(value)
    if isinstance(value, list):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidArguments(f"argument names must be strings, got {type(key).__name__}")
            out[repair_text(key)] = json_safe(item, depth + 1)
        return out
    raise InvalidArguments(f"a {type(value).__name__} is not a JSON value")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_arguments(raw: dict[str, Any] | str | None) -> dict[str, Any]:
    """Raw model output -> argument object (plain JSON data), or InvalidArguments (also for the
    oversized-arguments marker and for text over MAX_ARGUMENT_BYTES, which is never parsed)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        marker = _OVERSIZED_MARKER.fullmatch(raw)
        if marker is not None:
            size, limit = marker.groups()
            raise InvalidArguments(f"arguments of {size} bytes exceed the {limit}-byte limit")
        size = utf8_size(raw)
        if size > MAX_ARGUMENT_BYTES:
            raise InvalidArguments(oversized_arguments(size)[1:-1])
        text = raw.strip()
        if not text:
            return {}
        try:
            raw = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, NaN, over-long integers, depth
            raise InvalidArguments(f"arguments are not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(raw, dict):
        raise InvalidArguments(f"arguments must be a JSON object, got {type(raw).__name__}")
    return json_safe(raw)  # type: ignore[no-any-return]


def _type_name(value: Any) -> str:
    """The type named in argument errors. A number is `int` when integral: JSON does not tell `75`
    from `75.0` (jq and JavaScript drop the `.0`), so the name must not either."""
    if is_number(value):
        return "int" if float(value).is_integer() else "float"
    return type(value).__name__


def id_text(value: Any) -> str:
    """An argument as plain text, e.g. a record id: a number by its value (`75.0` is id `75`), since
    that is all JSON keeps of it."""
    return number_text(value) if is_number(value) else str(value)


def _shown(value: Any) -> str:
    """An argument value quoted in an observation: strings as repr, numbers by value."""
    return number_text(value) if is_number(value) else repr(value)


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return is_number(value) and float(value).is_integer()
    if kind == "object":
        return isinstance(value, dict)
    return is_number(value)


def _param_ok(param: Param, value: Any) -> bool:
    if param.type == "array":
        return isinstance(value, list) and all(_type_ok(param.items or "", item) for item in value)
    return _type_ok(param.type, value)


def validate_arguments(tool_name: str, params: list[Param], args: dict[str, Any]) -> dict[str, Any]:
    """Check args against the tool's parameters; returns them with integers normalised."""
    by_name = {p.name: p for p in params}
    unknown = sorted(set(args) - set(by_name))
    if unknown:
        raise InvalidArguments(f"unknown argument {unknown[0]!r} for {tool_name}; expected one of {sorted(by_name)}")
    out: dict[str, Any] = {}
    for p in params:
        if p.name not in args or args[p.name] is None:
            if p.required:
                raise InvalidArguments(f"missing required argument {p.name!r} ({p.type})")
            continue
        value = args[p.name]
        if not _param_ok(p, value):
            kind = f"array of {p.items}" if p.type == "array" else p.type
            raise InvalidArguments(f"argument {p.name!r} must be a {kind}, got {_type_name(value)}")
        outside = [v for v in (value if p.type == "array" else [value]) if v not in (p.enum or [v])]
        if outside:  # an array's enum is its elements'
            raise InvalidArguments(f"argument {p.name!r} must be one of {p.enum}, got {_shown(outside[0])}")
        out[p.name] = int(value) if p.type == "integer" else value
    return out


def _token(seed: str, salt: str) -> str:
    digest = hashlib.sha256(f"{seed}|{salt}".encode()).digest()
    return base64.b32encode(digest).decode()[:6]


@dataclass
class _Live:
    type: str
    id: str
    version: int
    fields: dict[str, Any]

    def render(self, projection: list[str] | None = None) -> dict[str, Any]:
        if projection is None:
            shown = copy_data(self.fields)
        else:
            shown = {k: copy_data(self.fields[k]) for k in projection if k in self.fields}
        return {"type": self.type, "id": self.id, "version": self.version, "fields": shown}


class World:
    """Mutable state of one episode. Built fresh from a case; never shared."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.tools = {t.name: t for t in case.tools}
        self._records: dict[str, _Live] = {
            r.ref: _Live(r.type, r.id, r.version, copy_data(r.fields)) for r in case.records
        }
        self._created = 0

    def apply(self, event: WorldEvent) -> None:
        """A change the rest of the system makes (a case's world event)."""
        live = self._records.get(event.ref)
        if live is not None:
            live.fields.update(copy_data(event.sets))
            live.version += 1

    # -- queries used by the linter and tests ------------------------------------------
    def get(self, ref: str) -> dict[str, Any] | None:
        live = self._records.get(ref)
        return live.render() if live else None

    def refs(self) -> list[str]:
        return list(self._records)

    def versions(self) -> dict[str, int]:
        """The current version of every record, by ref (cheap: no field copies)."""
        return {ref: live.version for ref, live in self._records.items()}

    # -- information tools ----------------------------------------------------------------
    def read(self, tool: ToolSpec, args: dict[str, Any]) -> Observation:
        effect = tool.effect
        assert isinstance(effect, InfoEffect)
        if effect.op == "get":
            assert effect.id_param is not None
            record_id = args[effect.id_param]
            live = self._records.get(make_ref(effect.record_type, id_text(record_id)))
            if live is None:
                return error("NOT_FOUND", f"no {effect.record_type} with id {_shown(record_id)}")
            return {"status": "ok", "record": live.render(effect.projection)}
        given = {param: args[param] for param in effect.filters if param in args}
        if not given and not effect.candidates:
            return error("INVALID_ARGUMENTS", f"{tool.name} needs at least one of {sorted(effect.filters)}")
        hits = [
            live
            for live in self._records.values()
            if live.type in effect.record_types
            and all(_matches(live.fields.get(effect.filters[p]), v, effect.match) for p, v in given.items())
        ]
        hits.sort(key=lambda live: (live.type, live.id))
        if effect.candidates:
            options = _argument_sets(hits, effect.filters)
            if given in options:  # the arguments of one lookup, exactly: its records
                hits = [h for h in hits if _argument_sets([h], effect.filters)[0] == given]
            elif len(options) > 1:  # several lookups fit: the agent refines its arguments
                return {"status": "ok", "count": len(options), "candidates": _page(options, effect, args)[0]}
        shown, paging = _page(hits, effect, args)
        return {
            "status": "ok",
            "count": len(hits),
            "truncated": len(hits) > len(shown) and not paging,
            **paging,
            "records": [live.render(effect.projection) for live in shown],
        }

    # -- consequential tools ----------------------------------------------------------------
    def act(self, tool: ToolSpec, args: dict[str, Any]) -> Observation:
        effect = tool.effect
        assert isinstance(effect, ActionEffect)
        target = None
        if effect.target_type is not None and effect.target_param is not None:
            target = self._records.get(make_ref(effect.target_type, id_text(args[effect.target_param])))
            if target is None:
                return rejected("NOT_FOUND", f"no {effect.target_type} with id {_shown(args[effect.target_param])}")
        for param, record_type in effect.references.items():
            if param in args and make_ref(record_type, id_text(args[param])) not in self._records:
                return rejected("NOT_FOUND", f"{param}: no {record_type} with id {_shown(args[param])}")
        vparam = effect.expected_version_param
        if target is not None and vparam and vparam in args and args[vparam] != target.version:
            return rejected(
                "VERSION_CONFLICT",
                f"{target.type}:{target.id} is at version {target.version}, not {id_text(args[vparam])}",
            )
        for inv in effect.invariants:
            left = self._operand(inv.left, target, args)
            right = self._operand(inv.right, target, args)
            if not compare(left, inv.op, right):
                return rejected(inv.code, inv.message)

        changed: list[dict[str, Any]] = []
        created: list[dict[str, Any]] = []
        result: dict[str, Any] = {}
        new_values = {f: self._operand(op, target, args) for f, op in effect.sets.items()}
        if effect.creates is not None:
            spec = effect.creates
            fields = {f: self._operand(op, target, args) for f, op in spec.fields.items()}
            self._created += 1
            new_id = f"{spec.id_prefix}-{_token(self.case.world_seed, f'{tool.name}|{self._created}')}"
            live = _Live(spec.type, new_id, 1, fields)
            self._records[make_ref(spec.type, new_id)] = live
            result[spec.result_key] = new_id
            created.append(live.render())
        for key in effect.returns:
            self._created += 1
            prefix = key.removesuffix("_id").upper().replace("_", "")[:8] or "RESULT"
            result[key] = f"{prefix}-{_token(self.case.world_seed, f'{tool.name}|{key}|{self._created}')}"
        if new_values and target is not None:
            target.fields.update(copy_data(new_values))
            target.version += 1
            changed.append(target.render())
        return {"status": "applied", "result": result, "records": created + changed}

    def _operand(self, operand: Operand, target: _Live | None, args: dict[str, Any]) -> Any:
        if operand.arg is not None:
            return args.get(operand.arg)
        if operand.field is not None:
            if target is None:
                return None
            if operand.field == "id":
                return target.id
            if operand.field == "version":
                return target.version
            return target.fields.get(operand.field)
        if operand.now:
            return self.case.now
        return copy_data(operand.value)


def absences_shown(case: Case, tool: ToolSpec, args: dict[str, Any], observation: Observation) -> list[str]:
    """The refs a successful read shows to be absent: the id a get was answered NOT_FOUND for, and
    each of the case's `absent` records a complete search (every match listed, on one page) would
    have returned had it existed (SPEC §3: the read that finds a record absent)."""
    effect = tool.effect
    if not isinstance(effect, InfoEffect):
        return []
    if effect.op == "get":
        code = (observation.get("error") or {}).get("code") if observation.get("status") == "error" else None
        record_id = args.get(effect.id_param or "")
        return [make_ref(effect.record_type, id_text(record_id))] if code == "NOT_FOUND" and record_id else []
    complete = (
        observation.get("status") == "ok"
        and isinstance(observation.get("records"), list)
        and not observation.get("truncated")
        and observation.get("pages", 1) == 1
    )
    if not complete:
        return []
    given = {param: args[param] for param in effect.filters if args.get(param) is not None}
    return [
        record.ref
        for record in case.absent
        if record.type in effect.record_types
        and all(_matches(record.fields.get(effect.filters[p]), v, effect.match) for p, v in given.items())
    ]


def _argument_sets(hits: list[_Live], filters: dict[str, str]) -> list[dict[str, Any]]:
    """The distinct filter values (as arguments) of the records a candidates search matched."""
    options: list[dict[str, Any]] = []
    for live in hits:
        option = {param: live.fields[field] for param, field in filters.items() if field in live.fields}
        if option not in options:
            options.append(option)
    return options


def _page(items: list[Any], effect: InfoEffect, args: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The page of `items` the call asked for (all of the first `limit` without a page parameter)."""
    if effect.page_param is None:
        return items[: effect.limit], {}
    page = max(1, int(args.get(effect.page_param) or 1))
    pages = max(1, -(-len(items) // effect.limit))
    start = (page - 1) * effect.limit
    return items[start : start + effect.limit], {"page": page, "pages": pages}


def _matches(field_value: Any, wanted: Any, mode: str) -> bool:
    if isinstance(field_value, str) and isinstance(wanted, str):
        a, b = field_value.strip().lower(), wanted.strip().lower()
        return b in a if mode == "contains" else a == b
    if isinstance(field_value, list):
        return any(_matches(item, wanted, mode) for item in field_value)
    return compare(field_value, "eq", wanted)
