"""The run store: a run directory with `run.json` and an append-only `episodes.jsonl`.

Each finished episode is appended as one line and handed to the operating system at once, so a run
killed at any moment loses at most the episodes in flight; `resume` skips the (case, condition,
repetition) keys already stored and drops a torn last line. `append` also fsyncs before it returns;
the `Appender` that the run loops use fsyncs from a background thread instead (group commit: the
loop never waits for the disk, and a machine crash can lose at most the last few milliseconds).
Runtime failures are stored as `missing` episodes with their reason - never as agent failures.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .model import Case, Protocol, Trajectory, Verdict, first_error

EpisodeKey = tuple[str, str, int]
SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class StoreError(RuntimeError):
    """A run directory that cannot be used as asked; the message names the path."""


class EpisodeRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    protocol: Protocol
    domain: str
    family: str
    agent: str = Field(description="configuration label: scripted agent name or model")
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


class RunStore:
    def __init__(self, directory: Path) -> None:
        name = directory.name
        if not SAFE_NAME.match(name) or set(name) == {"."}:
            raise StoreError(
                f"{str(directory)!r}: a run directory must be named with letters, digits, '.', '_' and '-' "
                "only (and not '.' or '..')"
            )
        try:
            # the run directory is exactly the path given, with '..' and links resolved up front, so
            # creating it never creates anything else (e.g. 'runs/a/../b' must not leave 'runs/a')
            self.directory = directory.resolve()
        except (OSError, ValueError) as exc:
            raise StoreError(f"{str(directory)!r}: {exc}") from None
        self.episodes_path = self.directory / "episodes.jsonl"
        self.meta_path = self.directory / "run.json"

    # -- opening ---------------------------------------------------------------------------------
    def open(self, meta: dict[str, Any], *, resume: bool) -> set[EpisodeKey]:
        """Create or reopen the run; returns the keys already stored."""
        if self.episodes_path.exists() and not resume:
            raise StoreError(f"{self.directory} already holds a run; pass --resume to continue it")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot create the run directory ({exc.strerror})") from None
        if not self.directory.is_dir():
            raise StoreError(f"{self.directory}: not a directory")
        done = {r.key for r in self._repair_and_read() if r.status == "completed"} if resume else set()
        previous = self.meta() if resume and self.meta_path.exists() else {}
        self.write_meta({**previous, **meta, "resumed": bool(previous)})
        self.episodes_path.touch()
        return done

    def _repair_and_read(self) -> list[EpisodeRecord]:
        """Records on disk; a torn final line (a kill mid-write) is cut off. A bad line anywhere
        else is an error naming it: resuming never throws away the episodes after it."""
        if not self.episodes_path.exists():
            return []
        raw = self.episodes_path.read_bytes()
        good_end = 0
        records: list[EpisodeRecord] = []
        lines = raw.splitlines(keepends=True)
        for number, line in enumerate(lines, start=1):
            last = number == len(lines)
            if not line.strip():
                good_end += len(line)
                continue
            try:
                if not line.endswith(b"\n"):
                    raise ValueError("line is not terminated")
                records.append(EpisodeRecord.model_validate_json(line))
            except ValueError as exc:  # ValidationError included
                if last:
                    break
                raise StoreError(f"{self.episodes_path}:{number}: {_first_error(exc)}") from None
            good_end += len(line)
        if good_end != len(raw):
            with self.episodes_path.open("r+b") as handle:
                handle.truncate(good_end)
        return self._latest(records)

    @staticmethod
    def _latest(records: list[EpisodeRecord]) -> list[EpisodeRecord]:
        """One record per key: a completed retry supersedes an earlier missing attempt."""
        by_key: dict[EpisodeKey, EpisodeRecord] = {}
        for record in records:
            if record.key not in by_key or record.status == "completed":
                by_key[record.key] = record
        return list(by_key.values())

    # -- writing ---------------------------------------------------------------------------------
    def append(self, record: EpisodeRecord) -> None:
        line = record.model_dump_json() + "\n"
        with self.episodes_path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def appender(self) -> Appender:
        return Appender(self.episodes_path)

    def write_meta(self, meta: dict[str, Any]) -> None:
        tmp = self.meta_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(self.meta_path)

    def update_meta(self, **changes: Any) -> None:
        self.write_meta({**self.meta(), **changes})

    # -- reading ---------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
            raise StoreError(f"{self.meta_path}: {exc}") from None
        if not isinstance(meta, dict):
            raise StoreError(f"{self.meta_path}: expected a JSON object, got {type(meta).__name__}")
        return meta

    def records(self) -> list[EpisodeRecord]:
        return self._latest(list(read_episodes(self.episodes_path)))


class Appender:
    """Appends records to an episodes file: each line is written and flushed at once (a killed process
    loses nothing written) and fsynced by a background thread shortly after, one fsync for all the
    lines written meanwhile. `close()` (or leaving the `with` block) waits for the last fsync."""

    def __init__(self, path: Path) -> None:
        self._handle = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()
        self._dirty = threading.Event()
        self._closing = False
        self._syncer = threading.Thread(target=self._sync_loop, name="episodes-fsync", daemon=True)
        self._syncer.start()

    def write(self, record: EpisodeRecord) -> None:
        self.write_line(record.model_dump_json())

    def write_line(self, line: str) -> None:
        """One record already serialised (`EpisodeRecord.model_dump_json()`), without its newline."""
        with self._lock:  # whole lines only, whichever thread writes
            self._handle.write(line + "\n")
            self._handle.flush()
        self._dirty.set()

    def _sync_loop(self) -> None:
        while True:
            self._dirty.wait()
            self._dirty.clear()
            os.fsync(self._handle.fileno())
            if self._closing and not self._dirty.is_set():
                return

    def close(self) -> None:
        if self._handle.closed:
            return
        self._closing = True
        self._dirty.set()
        self._syncer.join()
        self._handle.close()

    def __enter__(self) -> Appender:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def read_episodes(path: Path) -> list[EpisodeRecord]:
    """Every line of an episodes file; errors name the file, line and field."""
    out: list[EpisodeRecord] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(EpisodeRecord.model_validate_json(line))
        except ValidationError as exc:
            raise StoreError(f"{path}:{number}: {_first_error(exc)}") from None
    return out


def _first_error(exc: Exception) -> str:
    return first_error(exc, "(line)") if isinstance(exc, ValidationError) else str(exc)
