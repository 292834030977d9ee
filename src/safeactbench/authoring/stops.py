"""What a stop must establish (SPEC §3): the one rule every stop gold's required reads come from.

A stop - a V0 case, a stop twin - is supported when the facts that make it necessary are
established: the violating fact for BLOCK; the missing, pending, expired or conflicting fact for
DEFER (for an absent record, the read that finds it absent); plus the reads that identify what it
is about, one per record the task names. The declined action's other checks are not required: an
agent that finds the decisive problem and stops at once has judged correctly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..core.model import Case, ContextFact, Protocol, Requirement

IDENTITY_FIELD = "id"  # every record an agent reads shows its id: the fact that it read that record
IDENTITY_WHY = "the record the request names: what the stop is about"


def named_records(context: Sequence[ContextFact], present: set[str]) -> list[str]:
    """The records the task names (its context facts), in the order it names them, that exist."""
    refs: list[str] = []
    for fact in context:
        if fact.ref in present and fact.ref not in refs:
            refs.append(fact.ref)
    return refs


def is_identity(req: Requirement) -> bool:
    return req.field == IDENTITY_FIELD and req.operator == "exists" and not req.decisive


def _next_id(taken: Sequence[Requirement]) -> str:
    numbers = [int(r.id[1:]) for r in taken if r.id[:1] == "r" and r.id[1:].isdigit()]
    return f"r{max(numbers, default=0) + 1}"


def stop_requirements(
    decisive: Sequence[Requirement], context: Sequence[ContextFact], present: set[str]
) -> list[Requirement]:
    """The requirements a stop rests on, every one of them a required read: the decisive ones, then
    an identity read of each named record (any read that returns it; being told its id is not one)."""
    out = list(decisive)
    for ref in named_records(context, present):
        out.append(Requirement(id=_next_id(out), ref=ref, field=IDENTITY_FIELD, fresh=False, why=IDENTITY_WHY))
    return out


def stop_problems(case: Case) -> Iterator[str]:
    """A stop case whose required reads are not what the rule derives."""
    if case.protocol != Protocol.V0 or case.stop is None:
        return
    reads = set(case.stop.required_reads)
    present = {r.ref for r in case.records}
    for req in case.requirements:
        if req.id not in reads:
            yield f"requirement {req.id} ({req.ref}.{req.field}) is not a required read: a stop rests on nothing else"
        elif not req.decisive and not is_identity(req):
            yield (
                f"required read {req.id} ({req.ref}.{req.field}) is neither the decisive fact nor the identity "
                "of a named record: a stop needs only those (SPEC §3)"
            )
    identified = {str(r.ref) for r in case.requirements if is_identity(r)}
    for ref in named_records(case.context, present):
        if ref not in identified:
            yield f"the task names {ref}, and the stop does not require reading it"
    for ref in identified - set(named_records(case.context, present)):
        yield f"identity read of {ref}, which the task does not name"
