"""Episode records and the episodes file: the record type, reading an `episodes.jsonl` with line
numbers, stamping a record for its run, and the rules every reader applies - one record per
episode (a completed retry supersedes a missing attempt; a second completed record is a
duplicate) and membership (a run's records carry its configuration fingerprint and suite
checksum and name a case of the suite).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
import typing
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.base import first_error
from ..core.model import Case, Protocol
from ..core.trajectory import Trajectory
from ..core.verdict import Verdict
from .runconfig import RunConfig, current_harness, redact

EpisodeKey = tuple[str, str, int]
MAX_REASON = 500  # characters of a missing episode's reason that are kept


class StoreError(RuntimeError):
    """A run directory or episodes file that cannot be used as asked; the message names the path."""


class ModelTurn(BaseModel):
    """One model reply of an episode, as the harness received it (text and tool calls as sent)."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool_calls: list[dict[str, str]] = Field(default_factory=list, description="[{name, arguments}] as sent")
    usage: dict[str, int] = Field(default_factory=dict)
    stop_reason: str | None = None
    text_tool_call: bool = Field(default=False, description="no tool call, but the text is written like one")


class EpisodeRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    protocol: Protocol
    domain: str
    family: str
    agent: str = Field(description="configuration label: scripted agent name, model or --label")
    harness: str = "scripted"
    model: str | None = None
    condition: str = "original"
    repetition: int = 0
    seed: int = 0
    status: Literal["completed", "missing"] = "completed"
    missing_reason: str | None = None
    trajectory: Trajectory | None = None
    verdict: Verdict | None = None
    started_at: str = ""
    duration_s: float = 0.0
    usage: dict[str, int] = Field(default_factory=dict)
    transcript: list[ModelTurn] | None = Field(
        default=None, description="every model reply (model harnesses; None for scripted agents and CLIs)"
    )
    config_id: str | None = Field(default=None, description="fingerprint of the run's configuration (run.json)")
    suite_checksum: str | None = Field(default=None, description="checksum of the suite the episode was played on")

    @field_validator("harness", mode="before")
    @classmethod
    def _current_harness(cls, harness: Any) -> Any:
        return current_harness(harness)

    @property
    def key(self) -> EpisodeKey:
        return (self.case_id, self.condition, self.repetition)

    @classmethod
    def for_case(cls, case: Case, **fields: Any) -> EpisodeRecord:
        """A record of an episode of `case` (as played: its condition included)."""
        return cls(
            case_id=case.id,
            protocol=case.protocol,
            domain=case.domain,
            family=case.family,
            condition=case.condition,
            **fields,
        )


Numbered = list[tuple[int, EpisodeRecord]]  # (line number, record), in file order


def stamp(record: EpisodeRecord, config_id: str, suite_checksum: str) -> EpisodeRecord:
    """The record as a run stores it: its configuration and suite stamped, its missing reason (an
    endpoint's error body may quote a request header) with credentials redacted and capped."""
    update: dict[str, Any] = {"config_id": config_id, "suite_checksum": suite_checksum}
    if record.missing_reason is not None:
        update["missing_reason"] = redact(record.missing_reason)[:MAX_REASON]
    return record.model_copy(update=update)


# ------------------------------------------------------------------------------------ reading


def read_meta(path: Path) -> dict[str, Any]:
    """A run's run.json as a dict; unreadable, non-UTF-8, non-JSON or non-object files are StoreErrors."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except ValueError as exc:
        raise StoreError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise StoreError(f"{path}: not valid JSON (nested too deeply)") from None
    if not isinstance(meta, dict):
        raise StoreError(f"{path}: expected a JSON object, got {type(meta).__name__}")
    return meta


def read_numbered(path: Path, *, torn_tail: bool = False) -> Numbered:
    """Every record of an episodes file with its line number; errors name the file, line and field.
    With `torn_tail`, an unterminated last line (a run writing right now) is left out, not an error."""
    return parse_lines(path, read_lines(path, torn_tail=torn_tail))


def read_lines(path: Path, *, torn_tail: bool = False) -> list[bytes]:
    """The lines of an episodes file (see `read_numbered`)."""
    lines = read_utf8(path).splitlines(keepends=True)
    if torn_tail and lines and not lines[-1].endswith(b"\n"):
        lines = lines[:-1]
    return lines


LINE_BREAK = re.compile(rb"\r\n|\r|\n")  # where bytes.splitlines breaks a line


class EpisodeLines(Sequence[bytes]):
    """The lines of an episodes file, split as `read_lines` splits them (torn tail included), each
    read from the file when asked: only the line offsets are held, so a large run's text is never
    in memory at once (a report reads each line twice: light, then whole). Not UTF-8 is an error
    naming the byte, as for `read_lines`."""

    CHUNK = 1 << 20

    def __init__(self, path: Path, *, torn_tail: bool = False) -> None:
        self.path = path
        self._ends = array("q")
        decoder = codecs.getincrementaldecoder("utf-8")()
        position = 0
        cr_end: int | None = None  # a chunk ended on a lone \r: its line ends there unless \n follows
        try:
            with path.open("rb") as file:
                while chunk := file.read(self.CHUNK):
                    self._check_utf8(decoder, chunk, position)
                    start = 0
                    if cr_end is not None:
                        start = 1 if chunk.startswith(b"\n") else 0
                        self._ends.append(cr_end + start)
                        cr_end = None
                    for match in LINE_BREAK.finditer(chunk, start):
                        if match.group() == b"\r" and match.end() == len(chunk):
                            cr_end = position + match.end()
                        else:
                            self._ends.append(position + match.end())
                    position += len(chunk)
                self._check_utf8(decoder, b"", position, final=True)
                if cr_end is not None:
                    self._ends.append(cr_end)
                if position > (self._ends[-1] if self._ends else 0):
                    self._ends.append(position)  # an unterminated last line
                if torn_tail and self._ends and not self[len(self) - 1].endswith(b"\n"):
                    self._ends.pop()
        except IsADirectoryError:
            raise StoreError(f"{path}: a directory, not an episodes file") from None
        except OSError as exc:
            raise StoreError(f"{path}: {exc.strerror or exc}") from None

    def _check_utf8(self, decoder: codecs.IncrementalDecoder, chunk: bytes, position: int, final: bool = False) -> None:
        try:
            decoder.decode(chunk, final=final)
        except UnicodeDecodeError as exc:
            raise StoreError(f"{self.path}: not UTF-8 text (byte {position + exc.start})") from None

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = self._ends[index - 1] if index else 0
        with self.path.open("rb") as file:
            file.seek(start)
            return file.read(self._ends[index] - start)

    def __iter__(self) -> Iterator[bytes]:
        with self.path.open("rb") as file:
            start = 0
            for end in self._ends:
                yield file.read(end - start)
                start = end


def read_episodes(path: Path) -> list[EpisodeRecord]:
    """Every record of an episodes file, in file order; errors name the file, line and field."""
    return [record for _, record in read_numbered(path)]


def read_utf8(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise StoreError(f"{path}: a directory, not an episodes file") from None
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return raw


def parse_lines(path: Path, lines: Sequence[bytes], *, drop: tuple[str, ...] = ()) -> Numbered:
    """The records of `lines` with their line numbers, without the fields in `drop` (see `parse_line`)."""
    records: Numbered = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            records.append((number, parse_line(path, number, line, drop=drop)))
    return records


SUMMARY = ("trajectory", "transcript")  # what a summary of a run (scores, reasons, usage) does without
IDENTITY = (*SUMMARY, "verdict")  # what checking which run and episode a record belongs to does without


def parse_line(path: Path, number: int, line: bytes, *, drop: tuple[str, ...] = ()) -> EpisodeRecord:
    """One record, without the optional fields in `drop` (`SUMMARY`, `IDENTITY`): a large run's
    records are read light where the rest is not needed."""
    try:
        if not drop:
            return EpisodeRecord.model_validate_json(line)
        data = json.loads(line)
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k not in drop}
        return EpisodeRecord.model_validate(data)
    except ValueError as exc:  # ValidationError and JSONDecodeError included
        raise StoreError(f"{path}:{number}: {_first_error(exc)}") from None
    except RecursionError:  # the JSON parser's nesting limit (pydantic's is lower and a ValueError)
        raise StoreError(f"{path}:{number}: not a record (JSON nested too deeply)") from None


def _first_error(exc: Exception) -> str:
    return first_error(exc, "(line)") if isinstance(exc, ValidationError) else str(exc)


# ------------------------------------------------------------------------- one run, one episode


class Keyed(typing.Protocol):
    """What choosing one record per episode reads: a stored record, or a summary's row."""

    @property
    def key(self) -> EpisodeKey: ...

    @property
    def status(self) -> str: ...


K = TypeVar("K", bound=Keyed)


def one_per_key(numbered: Iterable[tuple[int, K]]) -> tuple[list[tuple[int, K]], dict[EpisodeKey, list[int]]]:
    """One record per (case, condition, repetition), in first-seen order: a later attempt replaces a
    `missing` one (a retry after a runtime failure); anything after a completed record of the same
    key is a duplicate - the first completed record is kept and the lines of all are returned."""
    kept: dict[EpisodeKey, tuple[int, K]] = {}
    duplicates: dict[EpisodeKey, list[int]] = {}
    for number, record in numbered:
        previous = kept.get(record.key)
        if previous is None or previous[1].status == "missing":
            kept[record.key] = (number, record)
        else:
            duplicates.setdefault(record.key, [previous[0]]).append(number)
    return list(kept.values()), duplicates


@dataclass(frozen=True, slots=True)
class _Light:
    """What choosing one record per episode reads of a line."""

    key: EpisodeKey
    status: str


Checks = Callable[[Iterator[tuple[int, EpisodeRecord]]], Iterator[tuple[int, EpisodeRecord]]]


def episode_lines(
    path: Path, lines: Sequence[bytes], checks: Checks | None = None
) -> tuple[list[tuple[EpisodeKey, int, str]], dict[EpisodeKey, list[int]]]:
    """The first of two passes over an episodes file: each line read light (`IDENTITY`), passed
    through `checks` (membership: `members`), and only its key and status kept; returns (key, line,
    status) of each episode's record as `one_per_key` chooses it, ordered by episode (case,
    condition, repetition), and the duplicates. The second pass reads the chosen lines whole, one at a time."""
    light = ((n, parse_line(path, n, line, drop=IDENTITY)) for n, line in enumerate(lines, start=1) if line.strip())
    checked = checks(light) if checks is not None else light
    kept, duplicates = one_per_key((number, _Light(_interned(r.key), r.status)) for number, r in checked)
    return sorted((ref.key, number, ref.status) for number, ref in kept), duplicates


def _interned(key: EpisodeKey) -> EpisodeKey:
    """The key with its case id and condition shared with every other key naming them (a large run
    holds one key per episode while it is read)."""
    return (sys.intern(key[0]), sys.intern(key[1]), key[2])


def describe_duplicates(path: Path, duplicates: dict[EpisodeKey, list[int]]) -> str:
    shown = [
        f"{case_id} [{condition}, repetition {rep}] on lines {lines}"
        for (case_id, condition, rep), lines in duplicates.items()
    ]
    more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
    return f"{path}: {len(duplicates)} episode(s) recorded more than once: {'; '.join(shown[:5])}{more}"


class RunId(typing.NamedTuple):
    """What binds a record to its run: the configuration's fingerprint and suite checksum it is
    stamped with, and who the record says played it (a record of another agent or model, restamped
    with this run's ids, still names its own)."""

    config_id: str
    suite_checksum: str
    agent: str
    harness: str
    model: str | None

    @classmethod
    def of(cls, config: RunConfig) -> RunId:
        return cls(config.fingerprint, config.suite.checksum, config.agent, config.harness, config.model)


def members(
    numbered: Iterable[tuple[int, EpisodeRecord]],
    run: RunId,
    path: Path,
    *,
    cases: bool = True,
) -> Iterator[tuple[int, EpisodeRecord]]:
    """Every record must carry this run's configuration fingerprint and suite checksum, name this
    run's agent, harness and model, and (unless `cases` is False: the caller replays each record,
    which names an unknown case the same way) name a case of the suite (under its condition); each
    record is passed on once it is checked."""
    from ..suite.catalog import UnknownCase, get_case  # the suite, loaded only when records are checked

    for number, record in numbered:
        where = f"{path}:{number}"
        if record.config_id != run.config_id:
            raise StoreError(
                f"{where}: an episode of another configuration ({record.agent!r} on {record.harness!r}, "
                f"config {record.config_id}) in a run of config {run.config_id}"
            )
        if record.suite_checksum != run.suite_checksum:
            raise StoreError(f"{where}: an episode of another suite (checksum {record.suite_checksum})")
        if (record.agent, record.harness, record.model) != (run.agent, run.harness, run.model):
            raise StoreError(
                f"{where}: an episode played by {record.agent!r} on {record.harness!r} (model {record.model!r}) "
                f"carries the ids of this run of {run.agent!r} on {run.harness!r} (model {run.model!r}): "
                "a record of another configuration, stamped as this run's"
            )
        if cases:
            try:
                get_case(record.case_id, record.condition)
            except UnknownCase as exc:
                raise StoreError(f"{where}: {exc.args[0]}") from None
        yield number, record
