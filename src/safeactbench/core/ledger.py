"""The provenance-bound evidence ledger (SPEC §4).

Facts are bound to the exact record (`type:id`) and to the step and tool they came from. A
requirement is established before step t only by a fact about the same ref and field, from an
allowed source, recorded before t and still fresh at t.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .model import Case, Requirement, WorldEvent, make_ref
from .trajectory import Step
from .values import compare
from .world import InvalidArguments, absences_shown, parse_arguments

CONTEXT_STEP = -1  # context facts precede every step
ABSENT = "(absent)"  # the field of a fact that a read found its record missing
Source = Literal["context", "observation", "action"]


@dataclass(frozen=True, slots=True)
class Fact:
    ref: str
    field: str
    value: Any
    version: int | None
    step: int
    source: Source
    tool: str | None


def _records_of(observation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Records carried by a successful observation (get: `record`; search/action: `records`)."""
    if observation.get("status") not in ("ok", "applied"):
        return []
    if isinstance(observation.get("record"), Mapping):
        return [observation["record"]]
    records = observation.get("records")
    return [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []


def event_time(event: WorldEvent, steps: Sequence[Step]) -> float | None:
    """When a world event happens in a trajectory - between step n-1 and n, as n - 0.5 - or None
    if it has not happened yet."""
    if event.after_calls is not None:
        return event.after_calls - 0.5 if len(steps) >= event.after_calls else None
    for step in steps:
        if step.kind == "information" and any(
            make_ref(str(r["type"]), str(r["id"])) == event.ref for r in _records_of(step.observation)
        ):
            return step.index + 0.5
    return None


def _absences(case: Case, step: Step) -> list[str]:
    """The refs an information step found absent (`world.absences_shown`)."""
    status = step.observation.get("status")
    if (status == "ok" and not case.absent) or status not in ("ok", "error"):
        return []  # only a search can show an absent record of the case; an error only when NOT_FOUND
    tool = case.tool(step.tool)
    if tool is None:
        return []
    try:
        args = parse_arguments(step.arguments)
    except InvalidArguments:
        return []
    return absences_shown(case, tool, args, step.observation)


def facts_of_record(record: Mapping[str, Any], step: int, source: Source, tool: str) -> Iterable[Fact]:
    ref = make_ref(str(record["type"]), str(record["id"]))
    version = record.get("version")
    yield Fact(ref, "id", record["id"], version, step, source, tool)  # the record was seen: it exists
    yield Fact(ref, "version", version, version, step, source, tool)
    for name, value in (record.get("fields") or {}).items():
        yield Fact(ref, name, value, version, step, source, tool)


class Ledger:
    """Append-only facts of one trajectory, indexed by (ref, field)."""

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self._by_key: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        # ref -> when it changed: the step of an applied action, or n - 0.5 for an event after n calls
        self._changes: dict[str, list[float]] = defaultdict(list)

    @classmethod
    def build(cls, case: Case, steps: Iterable[Step]) -> Ledger:
        ledger = cls()
        for c in case.context:
            ledger._add(Fact(c.ref, c.field, c.value, None, CONTEXT_STEP, "context", None))
        steps = list(steps)
        for event in case.events:
            when = event_time(event, steps)
            if when is not None:
                ledger._changes[event.ref].append(when)
        for step in steps:
            if step.kind == "information":
                for record in _records_of(step.observation):
                    for fact in facts_of_record(record, step.index, "observation", step.tool):
                        ledger._add(fact)
                for ref in _absences(case, step):
                    ledger._add(Fact(ref, ABSENT, True, None, step.index, "observation", step.tool))
            elif step.kind == "consequential" and step.observation.get("status") == "applied":
                for record in _records_of(step.observation):
                    ref = make_ref(str(record["type"]), str(record["id"]))
                    if record.get("version", 1) > 1:
                        ledger._changes[ref].append(step.index)
                    for fact in facts_of_record(record, step.index, "action", step.tool):
                        ledger._add(fact)
        return ledger

    def _add(self, fact: Fact) -> None:
        self.facts.append(fact)
        self._by_key[(fact.ref, fact.field)].append(fact)

    def is_fresh(self, fact: Fact, before: int) -> bool:
        """No applied action or world event changed the fact's record after the fact and before step `before`."""
        return not any(fact.step < s < before for s in self._changes.get(fact.ref, ()))

    def establishing_fact(
        self,
        req: Requirement,
        ref: str,
        before: int,
        action_steps: Mapping[str, int] | None = None,
    ) -> Fact | None:
        """The latest fact that establishes `req` (about the resolved `ref`) before step `before`."""
        result_step = (action_steps or {}).get(req.result_of) if req.result_of else None
        absent = req.operator == "absent"
        for fact in reversed(self._by_key.get((ref, ABSENT if absent else req.field), ())):
            if fact.step >= before:
                continue
            if not self._source_allowed(req, fact, result_step):
                continue
            if not absent and not compare(fact.value, req.operator, req.value):
                continue
            if req.fresh and not self.is_fresh(fact, before):
                continue
            return fact
        return None

    @staticmethod
    def _source_allowed(req: Requirement, fact: Fact, result_step: int | None) -> bool:
        if fact.source == "action":
            return result_step is not None and fact.step == result_step
        if fact.source == "context":
            return req.via is not None and "context" in req.via
        return req.via is None or fact.tool in req.via
