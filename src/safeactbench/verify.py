"""Episode records are claims; `verify_records` re-derives what can be derived and checks the rest.

What a record says about its case (protocol, domain, family) comes from the suite, never from the
record; every verdict is derived again by replaying the trajectory (SPEC §5), never trusted as
stored. A completed record without a trajectory, a missing one with a verdict or without a reason,
an unknown case and a record of another configuration or suite than its run's are errors naming
the line. `evaluate` and `report` both read records through here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from .catalog import UnknownCase, get_case, indexed_case
from .evaluator import evaluate
from .model import Case
from .records import (
    IDENTITY,
    EpisodeKey,
    EpisodeRecord,
    Numbered,
    StoreError,
    check_membership,
    describe_duplicates,
    one_per_key,
    parse_line,
    parse_lines,
)
from .runconfig import RunConfig, active_suite


class _Kept(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def missing_reason(self) -> str | None: ...


Kept = TypeVar("Kept", bound=_Kept)  # what a verification keeps of each record: the record, or a reduction of it


@dataclass
class Verified(Generic[Kept]):
    """Records after verification, one per key, with what changed on the way."""

    records: list[Kept]
    changed: list[tuple[int, Kept, Kept]] = field(default_factory=list)  # line, stored, derived
    numbers: list[int] = field(default_factory=list)  # the line of each record (verify_lines)
    duplicates: dict[EpisodeKey, list[int]] = field(default_factory=dict)

    @property
    def completed(self) -> int:
        return sum(r.status == "completed" for r in self.records)

    def missing_reasons(self) -> dict[str, int]:
        """Missing episodes by the kind of their reason (`runtime_error`, `timeout`, ...)."""
        out: dict[str, int] = {}
        for r in self.records:
            if r.status == "missing":
                kind = (r.missing_reason or "unknown").split(":")[0]
                out[kind] = out.get(kind, 0) + 1
        return out


def verify_record(record: EpisodeRecord, where: str, lookup: Callable[[str, str], Case] = get_case) -> EpisodeRecord:
    """The record with its case labels from the suite and its verdict derived by replay."""
    try:
        case = lookup(record.case_id, record.condition)
    except UnknownCase as exc:
        raise StoreError(f"{where}: {exc.args[0]}") from None
    labels = {"protocol": case.protocol, "domain": case.domain, "family": case.family}
    if record.status == "completed":
        if record.trajectory is None:
            raise StoreError(f"{where}: a completed episode without its trajectory (nothing to score)")
        return record.model_copy(update={**labels, "verdict": evaluate(case, record.trajectory)})
    if record.verdict is not None:
        raise StoreError(f"{where}: a missing episode carries a verdict (missing episodes are not scored)")
    if not record.missing_reason:
        raise StoreError(f"{where}: a missing episode without its reason")
    return record.model_copy(update=labels)


def verify_records(
    numbered: Numbered,
    path: Path,
    *,
    run: tuple[str, str] | None = None,
    allow_duplicates: bool = False,
) -> Verified[EpisodeRecord]:
    """Verify every record of an episodes file. `run` = (config fingerprint, suite checksum) of the
    run the file belongs to: every record must carry both. Duplicates (a finished episode recorded
    twice) are an error unless `allow_duplicates`, which keeps the first and returns the lines."""
    kept, duplicates = _kept(numbered, path, run, allow_duplicates)
    result: Verified[EpisodeRecord] = Verified(records=[], duplicates=duplicates)
    for number, record in kept:
        result.records.append(_verified(result, number, record, verify_record(record, f"{path}:{number}"), _same))
    return result


def _same(record: EpisodeRecord) -> EpisodeRecord:
    return record


def verify_lines(
    lines: Sequence[bytes],
    path: Path,
    *,
    run: tuple[str, str] | None = None,
    allow_duplicates: bool = False,
    keep: Callable[[EpisodeRecord], Kept],
    lookup: Callable[[str, str], Case] = indexed_case,
) -> Verified[Kept]:
    """`verify_records` for the lines of an episodes file, one whole record in memory at a time:
    the checks run on light records, then each kept line is read whole, verified and passed through
    `keep` (e.g. to drop what the caller does not need) before the next. Memory grows with what
    `keep` returns, not with the records. The lines are replayed case by case, each case parsed
    when first needed (`catalog.indexed_case`); the records come back in file order."""
    kept, duplicates = _kept(parse_lines(path, lines, drop=IDENTITY), path, run, allow_duplicates, cases=False)
    numbers = [number for number, _ in kept]  # file order
    by_case = sorted(numbers, key={number: (r.case_id, r.condition, number) for number, r in kept}.__getitem__)
    del kept  # the light records: only their order is needed from here
    result: Verified[Kept] = Verified(records=[], duplicates=duplicates)
    verified: dict[int, Kept] = {}
    for number in by_case:
        record = parse_line(path, number, lines[number - 1])
        verified[number] = _verified(result, number, record, verify_record(record, f"{path}:{number}", lookup), keep)
    result.records = [verified[number] for number in numbers]  # back in file order
    result.numbers = numbers
    result.changed.sort(key=lambda change: change[0])
    return result


def _kept(
    numbered: Numbered, path: Path, run: tuple[str, str] | None, allow_duplicates: bool, cases: bool = True
) -> tuple[Numbered, dict[EpisodeKey, list[int]]]:
    if run is not None:
        check_membership(numbered, run[0], run[1], path, cases=cases)
    else:
        check_one_configuration(numbered, path)
    kept, duplicates = one_per_key(numbered)
    if duplicates and not allow_duplicates:
        raise StoreError(describe_duplicates(path, duplicates))
    return kept, duplicates


def _verified(
    result: Verified[Kept],
    number: int,
    record: EpisodeRecord,
    derived: EpisodeRecord,
    keep: Callable[[EpisodeRecord], Kept],
) -> Kept:
    """`keep(derived)`, noting in `result.changed` a stored record whose claims the replay changed."""
    kept = keep(derived)
    if _claims(record) != _claims(derived):
        result.changed.append((number, keep(record), kept))
    return kept


def check_suite(config: RunConfig, where: Path) -> None:
    """A run is read against the suite it played: the active one (`--suite`) must be it."""
    active = active_suite()
    played = config.suite
    if played.checksum != active.checksum:
        raise StoreError(
            f"{where}: a run of suite {played.name} {played.version} (checksum {played.checksum[:12]}), not of the "
            f"active suite {active.name} {active.version} ({active.checksum[:12]}); pass --suite with the "
            "directory of the suite it played"
        )


def check_one_configuration(numbered: Numbered, path: Path) -> None:
    """Records outside a run directory: all of one configuration, and of the installed suite."""
    suite = active_suite().checksum
    first: tuple[str, str, str | None, str | None] | None = None
    for number, record in numbered:
        if record.suite_checksum not in (None, suite):
            raise StoreError(
                f"{path}:{number}: an episode of another suite (checksum {record.suite_checksum}; "
                f"installed: {suite}); re-score it with the suite it was played on"
            )
        identity = (record.agent, record.harness, record.model, record.config_id)
        if first is None:
            first = identity
        elif identity != first:
            raise StoreError(
                f"{path}:{number}: episodes of more than one configuration ({first[0]!r} on {first[1]!r}, "
                f"then {record.agent!r} on {record.harness!r}); score each run on its own"
            )


def _claims(record: EpisodeRecord) -> tuple[object, ...]:
    verdict = record.verdict.model_dump(mode="json") if record.verdict is not None else None
    return (record.protocol, record.domain, record.family, verdict)
