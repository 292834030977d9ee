"""Reachability: can an agent find every record a case requires, starting from the request? (SPEC §7)

Starting points are the records the task names (context facts, ids written in the task text) and
the policy records (listed by the policy search). From a record an agent reaches

- every record whose id one of its fields holds (a link), when some tool reads that record type;
- every record a search tool returns for a value the agent already knows: a field value of a
  reached record, a value the requester states, or text of the task (a name, a room, a title;
  for a substring search, one word of the field as the task writes it).

A required record outside that closure is one the agent could only guess at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..core.model import Case, Record
from ..core.tool_spec import InfoEffect
from .policy import POLICY_TYPE


def _flat(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _norm(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip().lower()
    return text or None


def in_text(task: str, value: str) -> bool:
    """Whether `value` (3+ characters) stands as a whole word or phrase in the lower-cased `task`."""
    return len(value) >= 3 and re.search(rf"(?<![a-z0-9]){re.escape(value)}(?![a-z0-9])", task) is not None


def reachable(case: Case) -> set[str]:
    """The refs of every record an agent can reach from the request (see the module docstring)."""
    records = {r.ref: r for r in case.records}
    task = case.task.lower()
    readable = {t.effect.record_type for t in case.tools if isinstance(t.effect, InfoEffect)}
    searches: dict[str, list[InfoEffect]] = {}
    for t in case.tools:
        if isinstance(t.effect, InfoEffect) and t.effect.op == "search":
            searches.setdefault(t.effect.record_type, []).append(t.effect)
    stated = {c.ref for c in case.context}
    reached = {
        ref for ref, r in records.items() if ref in stated or r.type == POLICY_TYPE or in_text(task, r.id.lower())
    }
    while True:
        known = {_norm(c.value) for c in case.context} | {_norm(v) for ref in reached for v in _values(records[ref])}
        known.discard(None)
        new = {
            ref
            for ref, r in records.items()
            if ref not in reached
            and r.type in readable
            and (r.id.lower() in known or any(_found_by(s, r, known, task) for s in searches.get(r.type, [])))
        }
        if not new:
            return reached
        reached |= new


def _values(record: Record) -> Iterator[Any]:
    yield record.id
    for value in record.fields.values():
        yield from _flat(value)


def _found_by(search: InfoEffect, record: Record, known: set[str | None], task: str) -> bool:
    for field in search.filters.values():
        for value in _flat(record.id if field == "id" else record.fields.get(field)):
            text = _norm(value)
            if text is None:
                continue
            if text in known or in_text(task, text):
                return True
            if search.match == "contains" and any(in_text(task, word) for word in re.findall(r"[a-z]{4,}", text)):
                return True
    return False


def reach_problems(case: Case) -> Iterator[str]:
    """Required records the agent cannot reach from the request."""
    refs = {r.ref for r in case.records}
    required = {r.ref for r in case.requirements if isinstance(r.ref, str) and r.ref in refs}
    if not required:
        return
    for ref in sorted(required - reachable(case)):
        yield f"required record {ref} is not reachable from the request (no link or search leads to it)"
