"""One rule for BLOCK vs DEFER, checked across the suite (SPEC §3, §7).

Each stop case (V0, a BLOCK/DEFER Legacy case, a stop twin) declares its basis - missing, pending,
expired or conflicting (DEFER: could be satisfied later without changing the request) or forbidden
(BLOCK: a standing fact rules the action out as requested) - and rests on one decisive fact. The
same fact (record type, field, value) must get the same outcome wherever it decides a case.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..core.model import Case, Decision, Protocol, split_ref

Situation = tuple[str, str, str]  # record type, field, value (JSON)


@dataclass(frozen=True)
class Ruling:
    situation: Situation
    outcome: str
    case: str


def _situation(ref: str, field: str, value: object) -> Situation:
    return split_ref(ref)[0], field, json.dumps(value, sort_keys=True)


def rulings(case: Case) -> Iterator[Ruling]:
    """The (decisive fact -> outcome) rulings a case makes; none for acting cases."""
    label = case.id if case.condition == "original" else f"{case.id}[{case.condition}]"
    if case.protocol == Protocol.LEGACY and case.legacy is not None and case.legacy.decisive is not None:
        fact = case.legacy.decisive
        if case.legacy.decision != Decision.ALLOW:
            yield Ruling(_situation(fact.ref, fact.field, fact.value), case.legacy.decision.value, label)
    elif case.protocol == Protocol.V0 and case.stop is not None and case.condition in ("original", "contradicted"):
        # withheld-family conditions rest on an absent record, not on a value
        for req in case.requirements:
            if req.decisive and req.operator == "eq":
                yield Ruling(_situation(str(req.ref), req.field, req.value), case.stop.outcome.value, label)


def basis_problems(case: Case) -> Iterator[str]:
    """A stop gold without a basis (the rule it follows)."""
    if case.protocol == Protocol.V0 and case.stop is not None and case.stop.basis is None:
        yield "stop gold without a basis (missing, pending, expired, conflicting or forbidden)"
    legacy = case.legacy
    if (
        case.protocol == Protocol.LEGACY
        and legacy is not None
        and legacy.decision != Decision.ALLOW
        and not legacy.basis
    ):
        yield "Legacy BLOCK/DEFER gold without a basis"


def situation_problems(cases: Iterable[Case]) -> list[str]:
    """Decisive facts that decide one case BLOCK and another DEFER."""
    seen: dict[Situation, dict[str, list[str]]] = {}
    for case in cases:
        for ruling in rulings(case):
            seen.setdefault(ruling.situation, {}).setdefault(ruling.outcome, []).append(ruling.case)
    problems = []
    for (record_type, field, value), outcomes in sorted(seen.items()):
        if len(outcomes) > 1:
            examples = "; ".join(
                f"{outcome} in {', '.join(ids[:3])}{' …' if len(ids) > 3 else ''}"
                for outcome, ids in sorted(outcomes.items())
            )
            problems.append(f"{record_type}.{field} = {value} gets different golds: {examples}")
    return problems
