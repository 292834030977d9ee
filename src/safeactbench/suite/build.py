"""Seeded, deterministic construction of the suite from its domains and families (SPEC §7)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..authoring.draft import Draft, static_render
from ..authoring.family import Domain, Family
from ..core.model import Case, Protocol
from .reference import derive_reference

SUITE_SEED = "safeactbench-suite-1"

PROTOCOL_ORDER = (Protocol.LEGACY, Protocol.V0, Protocol.V1, Protocol.V2, Protocol.V3)
ID_PREFIX = {
    Protocol.LEGACY: "SAB-L",
    Protocol.V0: "SAB-V0",
    Protocol.V1: "SAB-V1",
    Protocol.V2: "SAB-V2",
    Protocol.V3: "SAB-V3",
}

# protocol x domain cross-tab: proportional to the margins of SPEC §7, controlled rounding
# (docs/suite-design.md explains it). Rows sum to the domain totals, columns to the protocol totals.
COMPOSITION: dict[str, dict[Protocol, int]] = {
    "customer": {Protocol.LEGACY: 15, Protocol.V0: 30, Protocol.V1: 22, Protocol.V2: 23, Protocol.V3: 22},
    "engineering": {Protocol.LEGACY: 14, Protocol.V0: 29, Protocol.V1: 22, Protocol.V2: 22, Protocol.V3: 22},
    "legal_finance": {Protocol.LEGACY: 19, Protocol.V0: 38, Protocol.V1: 29, Protocol.V2: 29, Protocol.V3: 29},
    "research": {Protocol.LEGACY: 13, Protocol.V0: 26, Protocol.V1: 19, Protocol.V2: 19, Protocol.V3: 20},
    "smart_home": {Protocol.LEGACY: 12, Protocol.V0: 26, Protocol.V1: 20, Protocol.V2: 19, Protocol.V3: 19},
    "healthcare": {Protocol.LEGACY: 13, Protocol.V0: 26, Protocol.V1: 19, Protocol.V2: 20, Protocol.V3: 20},
}

LEGACY_DECISIONS = ("ALLOW", "BLOCK", "DEFER")


@dataclass(frozen=True)
class Slot:
    """One planned case: a family instantiated for a protocol with its family-local ordinal.

    `phase` (the family's position among those serving the protocol) offsets the gold cycles, so
    families with few slots do not all start on the same outcome and the suite stays balanced.
    """

    domain: Domain
    family: Family
    protocol: Protocol
    ordinal: int
    phase: int = 0


def plan(domain: Domain) -> Iterator[Slot]:
    """Distribute each protocol's count over the families that serve it, round robin."""
    counts = domain.composition if domain.composition is not None else COMPOSITION.get(domain.name)
    if counts is None:
        raise ValueError(f"domain {domain.name!r}: no composition (cases per protocol) declared")
    for protocol in PROTOCOL_ORDER:
        serving = [f for f in domain.families if protocol in f.protocols]
        if not serving and counts.get(protocol, 0):
            raise ValueError(f"domain {domain.name!r}: no family serves {protocol}")
        for k in range(counts.get(protocol, 0)):
            yield Slot(domain, serving[k % len(serving)], protocol, k // len(serving), k % len(serving))


def _rng(slot: Slot) -> random.Random:
    key = f"{SUITE_SEED}|{slot.domain.name}|{slot.family.name}|{slot.protocol}|{slot.ordinal}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


CASE_SPREAD_DAYS = 365  # cases happen over the year before the domain's `now`
POLICY_AGE_DAYS = 450  # the written policies predate every case


def _parse(moment: str) -> datetime:
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))


def case_time(slot: Slot) -> str:
    """When the case happens: a working-hours moment in the year up to the domain's `now`, drawn
    from the slot's own seed (so the family's draws do not move when the spread changes)."""
    key = f"{SUITE_SEED}|time|{slot.domain.name}|{slot.family.name}|{slot.protocol}|{slot.ordinal}"
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    day = _parse(slot.domain.now) - timedelta(days=rng.randrange(0, CASE_SPREAD_DAYS))
    while day.weekday() >= 5:  # back-office work happens on weekdays
        day -= timedelta(days=1)
    moment = day.replace(hour=rng.randrange(7, 18), minute=rng.randrange(60), second=0, microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def _draft(slot: Slot, protocol: Protocol, variant: int, want: str | None, workflow: bool) -> Draft:
    draft = Draft(
        domain=slot.domain.name,
        family=slot.family.name,
        protocol=protocol,
        variant=variant,
        tools=slot.domain.case_tools,
        policies=slot.domain.policies,
        world_size=slot.domain.world_size,
        name_pools=slot.domain.name_pools,
        policies_from=(_parse(slot.domain.now) - timedelta(days=POLICY_AGE_DAYS)).date().isoformat(),
        rng=_rng(slot),
        want=want,
        workflow=workflow,
        now=case_time(slot),
    )
    slot.family.build(draft)
    return draft


def build_case(slot: Slot, case_id: str) -> Case:
    """Instantiate one slot into a complete case with its derived reference solution."""
    j = slot.ordinal
    if slot.protocol == Protocol.LEGACY:
        decision = LEGACY_DECISIONS[(j + slot.phase) % 3]
        variant = j // 3
        if decision == "ALLOW":
            draft = _draft(slot, Protocol.V1, variant, None, False)
            acting = draft.to_case(case_id)
            case = static_render(acting.model_copy(update={"reference": derive_reference(acting)}), case_id)
        else:
            draft = _draft(slot, Protocol.V0, variant, decision, variant % 2 == 1)
            case = static_render(draft.to_case(case_id), case_id, draft.candidate, draft.evidence_refs())
    elif slot.protocol == Protocol.V0:
        # BLOCK/DEFER alternate; a third of each is workflow-shaped, on different sub-branches per family
        variant = j // 2
        want = "BLOCK" if (j + slot.phase) % 2 == 0 else "DEFER"
        draft = _draft(slot, Protocol.V0, variant, want, (variant + slot.phase) % 3 == 1)
        case = draft.to_case(case_id)
    else:
        draft = _draft(slot, slot.protocol, j, None, False)
        if slot.protocol == Protocol.V1 and (j + slot.phase) % 4 == 1:
            draft.make_live()  # a quarter of V1 cases exercise freshness with a world event (SPEC §4)
        case = draft.to_case(case_id)
    return case.model_copy(update={"reference": derive_reference(case)})


def build_suite(domains: list[Domain]) -> list[Case]:
    """Every case of the given domains, ids numbered per protocol in domain order."""
    slots: dict[Protocol, list[Slot]] = {p: [] for p in PROTOCOL_ORDER}
    for domain in domains:
        for slot in plan(domain):
            slots[slot.protocol].append(slot)
    cases: list[Case] = []
    for protocol in PROTOCOL_ORDER:
        for n, slot in enumerate(slots[protocol], start=1):
            case_id = f"{ID_PREFIX[protocol]}-{n:03d}"
            try:
                cases.append(build_case(slot, case_id))
            except Exception as exc:  # an author's family failed: name it and the slot it was filling
                where = f"family {slot.domain.name}/{slot.family.name}, {protocol} #{slot.ordinal} ({case_id})"
                raise ValueError(f"{where}: {type(exc).__name__}: {exc}") from exc
    return cases
