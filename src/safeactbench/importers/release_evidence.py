"""The release's evidence as a SafeActBench world: facts become records, lookups become tools.

In the release an information call yields facts when its tool and arguments match an authored
lookup (`evidence_rules[].args_match`, or a `frozen_evidence_deltas` key `tool:{json args}`):
exactly, or - given only some of the arguments - as the one lookup they fit (several fitting give
a candidate list). Here each fact is a record (its type the fact's predicate, its fields the
fact's fields plus `query_<arg>` for the lookup's arguments) and each information tool a
`candidates` search over those records, filtered by the `query_` fields: the same answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.model import Record, Requirement
from ..core.tool_spec import InfoEffect, Param, ToolSpec
from ..core.values import values_equal

LOOKUP_TYPE = "lookup"  # the record of a required lookup that yields no fact: the call itself is the evidence
PAGE_PARAM = "page"


def slug(text: str, default: str = "fact") -> str:
    """A record type or tool name from release text: lower-case letters, digits, underscores."""
    cleaned = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")
    return cleaned if re.match(r"^[a-z]", cleaned or "") else f"{default}_{cleaned}".rstrip("_")


ParamType = Literal["string", "number", "integer", "boolean", "object", "array"]


def param_type(value: Any) -> ParamType:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string"


def loose_equal(actual: Any, expected: Any) -> bool:
    """The release's scalar match: JSON equality, numbers against numeric strings by value."""
    if values_equal(actual, expected):
        return True
    try:
        return float(str(actual)) == float(str(expected)) and not isinstance(actual, bool | dict | list)
    except ValueError:
        return False


@dataclass
class Lookup:
    tool: str
    arguments: dict[str, Any]
    records: list[Record] = field(default_factory=list)


@dataclass
class Evidence:
    """One case's lookups and the records they yield."""

    lookups: list[Lookup] = field(default_factory=list)

    @classmethod
    def of(cls, data: dict[str, Any]) -> Evidence:
        evidence = cls()
        taken: set[str] = set()
        for rule in data.get("evidence_rules") or []:
            evidence._add(str(rule.get("tool")), dict(rule.get("args_match") or {}), rule.get("facts") or [], taken)
        for key, facts in (data.get("frozen_evidence_deltas") or {}).items():
            tool, _, text = str(key).partition(":")
            try:
                arguments = json.loads(text) if text else {}
            except ValueError:
                raise ValueError(f"frozen_evidence_deltas key {key!r}: its arguments are not JSON") from None
            evidence._add(tool, arguments if isinstance(arguments, dict) else {}, facts or [], taken)
        return evidence

    def _add(self, tool: str, arguments: dict[str, Any], facts: list[Any], taken: set[str]) -> None:
        lookup = self.lookup(tool, arguments)
        if lookup is None:
            lookup = Lookup(tool, arguments)
            self.lookups.append(lookup)
        for fact in facts:
            if not isinstance(fact, dict):
                continue
            fields = {k: v for k, v in fact.items() if k != "predicate"}
            fields.update({f"query_{name}": value for name, value in arguments.items()})
            if any(r.fields == fields and r.type == slug(str(fact.get("predicate", ""))) for r in lookup.records):
                continue  # the same fact authored twice (a rule and its frozen copy)
            record_type = slug(str(fact.get("predicate") or "fact"))
            base = str(fact.get("source_record_id") or fact.get("subject_id") or fact.get("record_id") or tool)
            record_id, n = base, 1
            while f"{record_type}:{record_id}" in taken:
                n += 1
                record_id = f"{base}#{n}"
            taken.add(f"{record_type}:{record_id}")
            lookup.records.append(Record(type=record_type, id=record_id, fields=fields))

    def lookup(self, tool: str, arguments: dict[str, Any]) -> Lookup | None:
        return next((u for u in self.lookups if u.tool == tool and values_equal(u.arguments, arguments)), None)

    def ensure_lookup(self, tool: str, arguments: dict[str, Any]) -> Lookup:
        """A required lookup: when it yields no fact, a `lookup` record stands for the call itself."""
        found = self.lookup(tool, arguments)
        if found is None:
            found = Lookup(tool, arguments)
            self.lookups.append(found)
        if not found.records:
            fields = {f"query_{name}": value for name, value in arguments.items()}
            found.records.append(Record(type=LOOKUP_TYPE, id=f"{tool}-{self.lookups.index(found) + 1}", fields=fields))
        return found

    def records(self) -> list[Record]:
        return [r for u in self.lookups for r in u.records]

    def tools(self, names: list[str]) -> list[ToolSpec]:
        """A `candidates` search per information tool, over the records of its lookups."""
        specs = []
        for name in dict.fromkeys([*names, *(u.tool for u in self.lookups)]):
            mine = [u for u in self.lookups if u.tool == name]
            arguments: dict[str, Any] = {}
            for u in mine:
                for arg, value in u.arguments.items():
                    arguments.setdefault(arg, value)
            if not arguments:
                arguments = {"query": ""}
            types = list(dict.fromkeys(r.type for u in mine for r in u.records)) or [LOOKUP_TYPE]
            params = [
                Param(
                    name=slug(arg, "arg"),
                    type=param_type(value),
                    description=f"lookup argument {arg}",
                    required=False,
                    items="string" if isinstance(value, list) else None,
                )
                for arg, value in arguments.items()
            ]
            params.append(Param(name=PAGE_PARAM, type="integer", description="result page (from 1)", required=False))
            specs.append(
                ToolSpec(
                    name=slug(name, "tool"),
                    kind="information",
                    description=f"Look up {', '.join(types)} records by {', '.join(arguments)}. With some or none "
                    "of the arguments it lists the argument sets that fit, to refine.",
                    params=params,
                    effect=InfoEffect(
                        op="search",
                        record_type=types[0],
                        other_types=types[1:],
                        filters={slug(arg, "arg"): f"query_{arg}" for arg in arguments},
                        candidates=True,
                        page_param=PAGE_PARAM,
                        limit=50,
                    ),
                )
            )
        return specs

    def matching(self, condition: dict[str, Any], action_args: dict[str, Any]) -> list[tuple[Lookup, Record]]:
        """The records a `{"source": "fact", ...}` condition holds for; `{"action_arg": name}`
        stands for the action's argument (the fact must be about what the action names)."""
        wanted = {k: v for k, v in condition.items() if k not in ("source", "predicate")}
        predicate = condition.get("predicate")
        hits = []
        for u in self.lookups:
            for r in u.records:
                if predicate is not None and r.type != slug(str(predicate)):
                    continue
                if all(_holds(r.fields, k, bound(v, action_args)) for k, v in wanted.items()):
                    hits.append((u, r))
        return hits


def bound(value: Any, action_args: dict[str, Any]) -> Any:
    """A condition value with `{"action_arg": "a.b"}` replaced by that (dotted) action argument."""
    if isinstance(value, dict) and set(value) == {"action_arg"}:
        current: Any = action_args
        for part in str(value["action_arg"]).split("."):
            current = current.get(part) if isinstance(current, dict) else None
        return current
    return value


def _holds(fields: dict[str, Any], name: str, expected: Any) -> bool:
    return name in fields and (expected == "*" or loose_equal(fields[name], expected))


def requirements_for(
    req_id: str, record: Record, lookup: Lookup, condition: dict[str, Any], action_args: dict[str, Any], why: str
) -> list[Requirement]:
    """One requirement per field the condition checks (the record's version when it checks none)."""
    wanted = {k: bound(v, action_args) for k, v in condition.items() if k not in ("source", "predicate")}
    if not wanted:
        return [
            Requirement(
                id=req_id, ref=record.ref, field="version", op="exists", via=[slug(lookup.tool, "tool")], why=why
            )
        ]
    return [
        Requirement(
            id=f"{req_id}.{n}" if len(wanted) > 1 else req_id,
            ref=record.ref,
            field=name,
            op="exists" if value == "*" else "eq",
            value=None if value == "*" else record.fields[name],
            via=[slug(lookup.tool, "tool")],
            why=why,
        )
        for n, (name, value) in enumerate(wanted.items(), start=1)
    ]
