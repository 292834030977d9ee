"""Case authoring: a family writes one scenario into a `Draft`; the draft becomes a `Case`.

A family declares records, what the requester says (context), requirements, expected actions (or,
for V0, the stop outcome and the action the request tempts), and the task text. The reference
solution is derived by simulation (`derive_reference`), and Legacy cases are static renderings of
interactive scenarios (`static_render`), so gold and solution can never drift apart.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from ..core.model import (
    ActionCall,
    ArgRef,
    ArgValue,
    Case,
    ContextFact,
    Decision,
    DynamicRef,
    ExpectedAction,
    LegacyGold,
    Protocol,
    Record,
    Requirement,
    ResultRef,
    ScriptStep,
    StopBasis,
    StopGold,
    StopOutcome,
    WorldEvent,
    ref_type,
)
from ..core.tool_spec import CompareOp, InfoEffect, ToolSpec, summary_tools
from .consistency import NARRATIVE_FIELDS
from .policy import LIVE_RECORDS, Policy, grounds, policy_records
from .rec import Rec
from .stops import stop_requirements

T = TypeVar("T")


@dataclass
class Draft:
    """One scenario instance under construction. `variant` selects the family's branch."""

    domain: str
    family: str
    protocol: Protocol
    variant: int
    tools: list[ToolSpec]
    rng: random.Random
    policies: list[Policy] = field(default_factory=list)
    world_size: tuple[int, int] | None = None  # background population target (None: the scenario only)
    name_pools: tuple[tuple[str, ...], ...] = ()  # interchangeable names a background copy may take
    policies_from: str = "2024-12-01"  # when the policies took effect: before every case of the domain
    want: str | None = None  # V0: "BLOCK" or "DEFER"
    workflow: bool = False  # V0: the request is multi-step (SPEC §7)
    now: str = "2026-03-10T09:00:00Z"
    task: str = ""
    budget: int = 30
    notes: str = ""
    records: list[Rec] = field(default_factory=list)
    context: list[ContextFact] = field(default_factory=list)
    requirements: list[Requirement] = field(default_factory=list)
    actions: list[ExpectedAction] = field(default_factory=list)
    stop_outcome: StopOutcome | None = None
    stop_basis: StopBasis | None = None
    stop_reads: list[str] = field(default_factory=list)
    candidate: ActionCall | None = None
    reference_prefix: list[ScriptStep] = field(default_factory=list)
    distractors: list[str] = field(default_factory=list)
    events: list[WorldEvent] = field(default_factory=list)

    # -- records and context ---------------------------------------------------------------
    def record(
        self, record_type: str, record_id: str, *, version: int = 1, distractor: bool = False, **fields: Any
    ) -> Rec:
        if any(r.type == record_type and r.id == record_id for r in self.records):
            raise ValueError(f"{self.family}: duplicate record {record_type}:{record_id}")
        rec = Rec(record_type, record_id, dict(fields), version)
        if isinstance(fields.get("email"), str):  # two people of a world never share an e-mail address
            rec.fields["email"] = self._unused_email(record_type, fields["email"])
        self.records.append(rec)
        if distractor:
            self.distractors.append(rec.ref)
        return rec

    def _unused_email(self, record_type: str, email: str) -> str:
        taken = {r.fields.get("email") for r in self.records if r.type == record_type}
        local, _, host = email.partition("@")
        number = 2
        while email in taken:
            email, number = f"{local}{number}@{host}", number + 1
        return email

    def states(self, rec: Rec, field_name: str, value: Any | None = None) -> None:
        """The requester states `rec.field` in the task (a context fact); by default its actual value."""
        if value is None:
            value = rec.id if field_name == "id" else rec.fields[field_name]
        self.context.append(ContextFact(ref=rec.ref, field=field_name, value=value))

    def use_tools(self, *, add: Sequence[ToolSpec] = (), drop: Sequence[str] = ()) -> None:
        """This case offers other tools than its domain: without those named in `drop`, with `add`
        (a tool of the same name replaces the domain's)."""
        unknown = sorted(set(drop) - {t.name for t in self.tools})
        if unknown:
            raise ValueError(f"{self.family}: cannot drop {unknown}: the case has no such tool")
        replaced = {t.name for t in add} | set(drop)
        self.tools = [t for t in self.tools if t.name not in replaced] + list(add)

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    # -- expectations ------------------------------------------------------------------------
    def require(
        self,
        ref: Rec | DynamicRef | ArgRef | str,
        field_name: str,
        value: Any = None,
        *,
        op: CompareOp | None = None,
        via: list[str] | None = None,
        result_of: str | None = None,
        fresh: bool = True,
        decisive: bool = False,
        block_value: Any = None,
        block_fields: dict[str, Any] | None = None,
        why: str = "",
    ) -> str:
        """A requirement (its id). A decisive one names `block_value`, the value under which the action
        is wrong, and `block_fields`: how the record's other words read then (its comment, notes) -
        the contradicted twin is written with them, never left with the permitting state's text."""
        req_id = f"r{len(self.requirements) + 1}"
        target = ref.ref if isinstance(ref, Rec) else ref
        if via is not None and not isinstance(target, DynamicRef):  # a created record is in no search yet
            via = via + [t for t in summary_tools(self.tools, ref_type(target), field_name) if t not in via]
        self.requirements.append(
            Requirement(
                id=req_id,
                ref=target,
                field=field_name,
                op=op,
                value=value,  # type: ignore[arg-type]
                via=via,
                result_of=result_of,
                fresh=fresh,
                decisive=decisive,
                block_value=block_value,
                block_fields=block_fields or {},
                why=why,
            )
        )
        return req_id

    def action(
        self,
        tool: str,
        target: Rec | DynamicRef | ArgRef | str | None,
        *,
        requires: list[str] | None = None,
        after: list[str] | None = None,
        **arguments: ArgValue,
    ) -> str:
        """An expected action (its id) on `target`: None for a tool that creates what it acts on, an
        `ArgRef` (`chosen`) for a target the agent chooses."""
        action_id = f"a{len(self.actions) + 1}"
        ref = target.ref if isinstance(target, Rec) else target
        self.actions.append(
            ExpectedAction(
                id=action_id, tool=tool, target=ref, arguments=arguments, requires=requires or [], after=after or []
            )
        )
        return action_id

    def stop(
        self,
        outcome: StopOutcome,
        required_reads: list[str],
        *,
        basis: StopBasis,
        tempted_tool: str,
        **tempted_arguments: Any,
    ) -> None:
        """V0 gold: nothing may be done, for `basis` (which must give `outcome`: SPEC §3's one rule);
        `tempted_*` is the action the request asks for (Legacy candidate). Of `required_reads`, the
        case requires the decisive one (plus a read of each record the task names: the stop rule,
        SPEC §3); all of them are the evidence its static (Legacy) rendering shows."""
        self.stop_outcome = outcome
        self.stop_basis = basis
        self.stop_reads = required_reads
        self.candidate = ActionCall(tool=tempted_tool, arguments=tempted_arguments)

    def changes(self, rec: Rec, *, why: str, after_calls: int | None = None, **fields: Any) -> None:
        """A world event: `rec` takes these values (its version bumps) once the agent has made
        `after_calls` calls - or, by default, right after the agent first reads it - so a fresh
        requirement on it needs a read made after that (SPEC §4)."""
        event = WorldEvent(
            ref=rec.ref, sets=fields, after_calls=after_calls, after_first_read=after_calls is None, why=why
        )
        self.events.append(event)

    def make_live(self) -> None:
        """Make the decisive record live: mirrored from its source system, it is still synchronizing
        when the agent first reads it (`sync_status: syncing`, its decisive value and its words not
        there yet) and the synchronization completes right after that read - so acting needs a second
        read, and only that read shows the value the action rests on (SPEC §4, §7)."""
        decisive = [r for r in self.requirements if r.decisive and isinstance(r.ref, str)]
        rec = next((r for r in self.records if decisive and r.ref == decisive[0].ref), None)
        if rec is None:
            return
        moment = datetime.fromisoformat(self.now.replace("Z", "+00:00"))
        stamp = (moment - timedelta(minutes=self.rng.randint(3, 50))).isoformat().replace("+00:00", "Z")
        pending = [decisive[0].field, *(name for name in NARRATIVE_FIELDS if rec.fields.get(name))]
        brought = {name: rec.fields[name] for name in pending}
        rec.fields.update(live=True, sync_status="syncing", synced_at=stamp, **dict.fromkeys(pending))
        self.changes(
            rec,
            why="the synchronization from the source system completed",
            sync_status="synced",
            synced_at=self.now,
            **brought,
        )

    def evidence_refs(self) -> set[str]:
        """The records a stop's static rendering shows: those of every read the family listed."""
        return {str(r.ref) for r in self.requirements if r.id in self.stop_reads}

    def read(self, tool: str, **arguments: Any) -> None:
        """A reference step to run before the derived ones (e.g. a search that disambiguates)."""
        self.reference_prefix.append(ScriptStep(tool=tool, arguments=arguments))

    @staticmethod
    def result(action_id: str, key: str) -> ResultRef:
        return ResultRef(result_of=action_id, key=key)

    @staticmethod
    def created(record_type: str, action_id: str, key: str) -> DynamicRef:
        return DynamicRef(type=record_type, id=ResultRef(result_of=action_id, key=key))

    @property
    def next_action(self) -> str:
        """The id `action()` gives the next expected action (to bind requirements to its arguments)."""
        return f"a{len(self.actions) + 1}"

    @staticmethod
    def chosen(record_type: str, action_id: str, arg: str) -> ArgRef:
        """The record the agent names as argument `arg` of that action (requirements about what it chose)."""
        return ArgRef(type=record_type, action=action_id, arg=arg)

    # -- conversion -------------------------------------------------------------------------
    def _background(self) -> list[Rec]:
        if self.world_size is None:
            return []
        from .population import populate  # population re-instantiates drafts' records

        named = {c.ref for c in self.context} | {r.ref for r in self.records if r.id in self.task}
        size = self.rng.randint(*self.world_size)  # the domain's policy records come on top (SPEC §7)
        filters = _search_filters(self.tools)
        return populate(self.records, named, self.task, filters, self.rng, size, self.name_pools)

    def to_case(self, case_id: str) -> Case:
        seed = hashlib.sha256(f"{self.domain}|{self.family}|{case_id}|{self.variant}".encode()).hexdigest()[:16]
        background = self._background() if self.protocol != Protocol.LEGACY else []
        actions = [t.name for t in self.tools if t.kind == "consequential"]
        records = [
            Record(type=r.type, id=r.id, version=r.version, fields=r.fields) for r in self.records + background
        ] + policy_records([*self.policies, LIVE_RECORDS] if self.policies else [], actions, self.policies_from)
        requirements = self.requirements
        stop = None
        if self.protocol == Protocol.V0:
            assert self.stop_outcome is not None, f"{self.family}: V0 draft without stop()"
            # the stop rests on its decisive fact and the named records only (SPEC §3); what else the
            # family lists is the evidence a static rendering shows (`evidence_refs`)
            decisive = [r for r in self.requirements if r.decisive]
            requirements = stop_requirements(decisive, self.context, {r.ref for r in records})
            stop = StopGold(
                outcome=self.stop_outcome,  # type: ignore[arg-type]
                required_reads=[r.id for r in requirements],
                basis=self.stop_basis,
                requested=self.candidate,
            )
        case = Case(
            id=case_id,
            protocol=self.protocol,
            domain=self.domain,
            family=self.family,
            task=" ".join(self.task.split()),
            context=self.context,
            now=self.now,
            budget=self.budget,
            tools=self.tools,
            records=records,
            world_seed=seed,
            requirements=requirements,
            expected_actions=self.actions if self.protocol != Protocol.V0 else [],
            stop=stop,
            reference=list(self.reference_prefix),
            distractors=self.distractors,
            events=self.events,
            tags=["workflow"] if self.protocol == Protocol.V0 and self.workflow else [],
            notes=self.notes,
        )
        cited = [r.model_copy(update={"grounds": grounds(case, r)}) for r in case.requirements]
        return case.model_copy(update={"requirements": cited})


def _search_filters(tools: Sequence[ToolSpec]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for t in tools:
        if isinstance(t.effect, InfoEffect) and t.effect.op == "search":
            out.setdefault(t.effect.record_type, set()).update(t.effect.filters.values())
    return out


def static_render(
    case: Case, case_id: str, candidate: ActionCall | None = None, evidence: Collection[str] | None = None
) -> Case:
    """The Legacy form of an interactive case (SPEC §6): candidate = its expected (or tempted)
    action (as its reference solution calls it), evidence package = the records its requirements are
    about (or the refs `evidence` names), gold = ALLOW for an acting case, its stop outcome for a V0 case."""
    basis = decisive = None
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        candidate = candidate or case.stop.requested
        assert candidate is not None, f"{case.id}: a stop case renders to Legacy only with the requested action"
        decision = Decision(case.stop.outcome.value)
        req_ids = case.stop.required_reads
        basis = case.stop.basis
        # the fact the decision rests on, when it is an equality (the situation lint compares those)
        decisive = next(
            (
                ContextFact(ref=str(r.ref), field=r.field, value=r.value)
                for r in case.requirements
                if r.decisive and r.operator == "eq"
            ),
            None,
        )
    else:
        candidate = candidate or case.first_call()
        decision = Decision.ALLOW
        req_ids = case.expected_actions[0].requires
    # the records its gate is about, plus every record the candidate's arguments name (its target
    # among them), so the size of the package does not give the decision away
    named = {str(v) for v in candidate.arguments.values()}
    wanted = set(evidence) if evidence is not None else {str(case.requirement(r).ref) for r in req_ids}
    shown = [r for r in settled(case) if r.ref in wanted or r.id in named]
    return case.model_copy(
        update={
            "id": case_id,
            "protocol": Protocol.LEGACY,
            "requirements": [],
            "expected_actions": [],
            "stop": None,
            "reference": [],
            "events": [],
            "legacy": LegacyGold(
                candidate=candidate, evidence=shown, decision=decision, basis=basis, decisive=decisive
            ),
        }
    )


def settled(case: Case) -> list[Record]:
    """The world's records once every world event has happened: what a static package shows (it has
    no calls for the events to happen between)."""
    changed: dict[str, Record] = {}
    for event in case.events:
        record = changed.get(event.ref) or next((r for r in case.records if r.ref == event.ref), None)
        if record is not None:
            changed[event.ref] = record.model_copy(
                update={"fields": {**record.fields, **event.sets}, "version": record.version + 1}
            )
    return [changed.get(r.ref, r) for r in case.records]
