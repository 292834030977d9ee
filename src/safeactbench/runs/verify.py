"""Episode records are claims; `verify_lines` re-derives what can be derived and checks the rest.

What a record says about its case (protocol, domain, family) comes from the suite, never from the
record; every verdict is derived again by replaying the trajectory (SPEC §5), never trusted as
stored. A completed record without a trajectory, a missing one with a verdict or without a reason,
an unknown case and a record of another configuration or suite than its run's are errors naming
the line. `evaluate` and `report` both read records through here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from ..core.evaluator import evaluate
from ..core.model import Case
from ..suite.catalog import UnknownCase, get_case, indexed_case
from .records import (
    EpisodeKey,
    EpisodeLines,
    EpisodeRecord,
    RunId,
    StoreError,
    describe_duplicates,
    episode_lines,
    members,
    parse_line,
)
from .rows import EpisodeRow, decode_row, encode_row, episode_row
from .rowstore import LineSpool, RowStore
from .runconfig import RunConfig, active_suite


class _Kept(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def missing_reason(self) -> str | None: ...


Kept = TypeVar("Kept", bound=_Kept)  # what a verification keeps of each record: the record, or a reduction of it


class Sink(Protocol[Kept]):
    """Where verified records go: a list, or a `rowstore.RowStore` that spills past its budget."""

    def append(self, item: Kept, /) -> None: ...

    def __iter__(self) -> Iterator[Kept]: ...

    def __len__(self) -> int: ...


@dataclass
class Verified(Generic[Kept]):
    """Records after verification, one per key, with what changed on the way."""

    records: Sink[Kept]
    changed_lines: list[int] = field(default_factory=list)  # the lines whose claims the replay changed
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


def verify_lines(
    lines: Sequence[bytes],
    path: Path,
    *,
    run: RunId | None = None,
    allow_duplicates: bool = False,
    keep: Callable[[EpisodeRecord, int], Kept],
    into: Sink[Kept],
    lookup: Callable[[str, str], Case] = indexed_case,
    on_change: Callable[[int, EpisodeRecord, EpisodeRecord], None] | None = None,
) -> Verified[Kept]:
    """Verify every record of an episodes file, one whole record in memory at a time (each by
    `verify_record`). `run` = the `RunId` of the run the file belongs to: every record must carry
    its ids and name its agent, harness and model (without it, the records must be of one
    configuration).
    Duplicates (a finished episode recorded twice) are an error unless `allow_duplicates`, which
    keeps the first and returns the lines.

    A first pass checks each line's light record and keeps its key; then each kept line is read
    whole, verified, reduced by `keep(record, line)` and appended to `into` before the next. Memory
    grows with what `into` holds (a `rowstore.RowStore` holds a budget), plus the keys. The lines
    are replayed case by case, each case parsed when first needed (`catalog.indexed_case`), and
    reach `into` in that order: by case, condition and repetition. `on_change(line, stored,
    derived)` hears of each record whose claims the replay changed."""

    def checks(light: Iterator[tuple[int, EpisodeRecord]]) -> Iterator[tuple[int, EpisodeRecord]]:
        return members(light, run, path, cases=False) if run else one_configuration(light, path)

    order, duplicates = episode_lines(path, lines, checks)
    if duplicates and not allow_duplicates:
        raise StoreError(describe_duplicates(path, duplicates))
    result = Verified(records=into, duplicates=duplicates)
    for _, number, _ in order:
        record = parse_line(path, number, lines[number - 1])
        derived = verify_record(record, f"{path}:{number}", lookup)
        into.append(keep(derived, number))
        if _claims(record) != _claims(derived):
            result.changed_lines.append(number)
            if on_change is not None:
                on_change(number, record, derived)
    result.changed_lines.sort()
    return result


@dataclass(frozen=True)
class Change:
    """A stored record whose claims the replay changed (`rescore`)."""

    line: int
    case_id: str
    detail: str  # "stored X -> replayed Y", and the labels if they moved
    verdict: bool  # whether the verdict changed (else only the case labels)


@dataclass
class Rescored:
    verified: Verified[EpisodeRow]
    changes: list[Change]  # by line


def rescore(lines: Sequence[bytes], path: Path, *, run: RunId | None, out: LineSpool | None = None) -> Rescored:
    """`evaluate`: every record of an episodes file verified (`verify_lines`, no duplicates) into
    rows within the memory budget, each re-scored record's JSON put in `out` at its line, and what
    the replay changed."""
    rows: RowStore[EpisodeRow] = RowStore(None, encode_row, decode_row)
    changes: list[Change] = []

    def keep(record: EpisodeRecord, number: int) -> EpisodeRow:
        if out is not None:
            out.put(number, record.model_dump_json())
        return episode_row(record, number)

    def note(number: int, stored: EpisodeRecord, derived: EpisodeRecord) -> None:
        was = stored.verdict.outcome.value if stored.verdict else "no verdict"
        now = derived.verdict.outcome.value if derived.verdict else "no verdict"
        detail = f"stored {was} -> replayed {now}"
        if (stored.protocol, stored.domain) != (derived.protocol, derived.domain):
            detail += f"; labels {stored.protocol.value}/{stored.domain} -> {derived.protocol.value}/{derived.domain}"
        changes.append(Change(number, stored.case_id, detail, stored.verdict != derived.verdict))

    verified = verify_lines(lines, path, run=run, keep=keep, into=rows, on_change=note)
    return Rescored(verified, sorted(changes, key=lambda change: change.line))


def verified_rows(store_dir: Path, config: RunConfig) -> RowStore[EpisodeRow]:
    """A run's rows as the report reads them: every record checked against the run and its verdict
    derived again from its trajectory (what `run --resume` summarises, since the records written
    before it were not scored by this process)."""
    path = store_dir / "episodes.jsonl"
    rows: RowStore[EpisodeRow] = RowStore(None, encode_row, decode_row)
    verify_lines(EpisodeLines(path), path, run=RunId.of(config), keep=episode_row, into=rows)
    return rows


def check_suite(config: RunConfig, where: Path) -> None:
    """A run is read against the suite it played: the active one (`--suite`) must be it."""
    active = active_suite()
    played = config.suite
    if played.checksum == active.checksum:
        return
    ran = f"{where}: a run of suite {played.name} {played.version} (checksum {played.checksum[:12]})"
    if (played.name, played.version) == (active.name, active.version):
        raise StoreError(
            f"{ran}, but the active suite of that name and version holds other cases ({active.checksum[:12]}): "
            "its cases were edited since the run; a suite is identified by its cases, so score this run with "
            "the suite directory as it was"
        )
    raise StoreError(
        f"{ran}, not of the active suite {active.name} {active.version} ({active.checksum[:12]}); pass --suite "
        "with the directory of the suite it played"
    )


def one_configuration(numbered: Iterable[tuple[int, EpisodeRecord]], path: Path) -> Iterator[tuple[int, EpisodeRecord]]:
    """Records outside a run directory: all of one configuration, and of the installed suite; each
    record is passed on once it is checked."""
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
        yield number, record


def _claims(record: EpisodeRecord) -> tuple[object, ...]:
    verdict = record.verdict.model_dump(mode="json") if record.verdict is not None else None
    return (record.protocol, record.domain, record.family, verdict)
