"""The run store: a run directory with `run.json` and an append-only `episodes.jsonl`.

A run is one configuration (`runconfig.RunConfig`, pinned in `run.json`): `--resume` refuses any
other, and every record is stamped with the configuration's fingerprint and the suite checksum.
One process writes a run at a time (`runlock`); the record type and the rules every reader
applies live in `records`. Each finished episode is appended as one line and handed to the
operating system at once, so a run killed at any moment loses at most the episodes in flight;
`resume` skips the (case, condition, repetition) keys already completed and cuts a torn
(unterminated) last line. Any other unreadable line, a record of another configuration or suite,
an unknown case or a second record of a finished episode is an error naming the line.

`append` fsyncs before it returns; the `Appender` that the run loops use fsyncs from a background
thread instead (group commit: the loop never waits for the disk, and a machine crash can lose at
most the last few milliseconds). Runtime failures are stored as `missing` episodes with their
reason (credentials redacted) - never as agent failures.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from ..core.base import first_error
from .records import (
    SUMMARY,
    EpisodeKey,
    EpisodeLines,
    EpisodeRecord,
    RunId,
    StoreError,
    describe_duplicates,
    episode_lines,
    members,
    one_per_key,
    parse_line,
    parse_lines,
    read_episodes,
    read_lines,
    read_meta,
    read_numbered,
    stamp,
)
from .rows import EpisodeRow, decode_row, encode_row, episode_row
from .rowstore import RowStore, SpillError
from .runconfig import RunConfig
from .runlock import RunLocked, lock_run, unlock_run

SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")

__all__ = [
    "Appender",
    "EpisodeKey",
    "EpisodeRecord",
    "RunStore",
    "StoreError",
    "read_episodes",
    "read_meta",
    "read_numbered",
    "run_config",
    "stamp",
]


def run_config(meta: dict[str, Any], where: Path) -> RunConfig:
    """The configuration pinned in a run's metadata."""
    if "config" not in meta:
        raise StoreError(
            f"{where}: no pinned configuration (the run predates configuration pinning, or run.json was "
            "edited); start a new run directory"
        )
    try:
        return RunConfig.model_validate(meta["config"])
    except ValidationError as exc:
        raise StoreError(f"{where}: {first_error(exc, 'config')}") from None


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
        self._config: RunConfig | None = None

    # -- opening ---------------------------------------------------------------------------------
    def open(self, config: RunConfig, meta: dict[str, Any], *, planned: int, resume: bool) -> set[EpisodeKey]:
        """Create the run, or reopen it with `resume` (same configuration only); take its lock and
        return the keys of the episodes already completed. `planned` only grows: repetitions and
        --limit take longer or shorter prefixes of one plan, and a run covers the longest."""
        if self.episodes_path.exists() and not resume:
            raise StoreError(f"{self.directory} already holds a run; pass --resume to continue it")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot create the run directory ({exc.strerror})") from None
        if not self.directory.is_dir():
            raise StoreError(f"{self.directory}: not a directory")
        self.lock()
        previous: dict[str, Any] = {}
        if resume and (self.meta_path.exists() or self.episodes_path.exists()):
            previous = self.meta()
            differences = self.config().differences(config)
            if differences:
                raise StoreError(
                    f"{self.directory} holds a run of another configuration; a run is one configuration, so "
                    "resume it with the options it was created with, or use a new --out:\n  " + "\n  ".join(differences)
                )
        done = self.completed_keys() if previous else set()
        self._config = config
        self.write_meta(
            {
                **previous,
                **meta,
                "config": config.model_dump(mode="json"),
                "config_id": config.fingerprint,
                "planned": max(planned, int(previous.get("planned") or 0)),
                "resumed": bool(previous),
            }
        )
        self.episodes_path.touch()
        return done

    def release(self) -> None:
        """Give up the run directory's lock (a process that exits releases it anyway)."""
        unlock_run(self.directory)

    def lock(self) -> None:
        """Hold the run directory's lock for the life of this process (or until `release`)."""
        try:
            lock_run(self.directory)
        except RunLocked as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot lock the run directory ({exc.strerror or exc})") from None

    def config(self) -> RunConfig:
        """The configuration pinned in run.json (a StoreError if there is none or it is unreadable)."""
        if self._config is None:
            self._config = run_config(self.meta(), self.meta_path)
        return self._config

    def completed_keys(self) -> set[EpisodeKey]:
        """The keys of the episodes already completed, after cutting a torn last line. Every record
        must be of this run's configuration and suite and of a known case, and no finished episode
        twice. Each line is read light, one at a time: only the keys are held."""
        lines = self._repaired_lines()
        config = self.config()

        def checks(light: Iterator[tuple[int, EpisodeRecord]]) -> Iterator[tuple[int, EpisodeRecord]]:
            return members(light, RunId.of(config), self.episodes_path)

        kept, duplicates = episode_lines(self.episodes_path, lines, checks)
        if duplicates:
            raise StoreError(describe_duplicates(self.episodes_path, duplicates) + "; keep one line per episode")
        return {key for key, _, status in kept if status == "completed"}

    def _repaired_lines(self) -> Sequence[bytes]:
        """The lines of the episodes file; a torn last line (a kill mid-write leaves one without its
        newline) is cut off. Any other unreadable line is an error naming it when read: resuming
        never throws away a complete line, nor the episodes after it."""
        if not self.episodes_path.exists():
            return []
        lines = EpisodeLines(self.episodes_path)
        if lines and not lines[-1].endswith(b"\n"):
            torn = lines[-1]
            try:
                with self.episodes_path.open("r+b") as handle:
                    handle.truncate(self.episodes_path.stat().st_size - len(torn))
            except OSError as exc:
                raise StoreError(f"{self.episodes_path}: cannot cut the torn last line ({exc.strerror})") from None
            lines = EpisodeLines(self.episodes_path)
        return lines

    # -- writing ---------------------------------------------------------------------------------
    def prepare(self, record: EpisodeRecord) -> EpisodeRecord:
        """The record as this run stores it (`stamp`); a record of another agent or harness is refused."""
        config = self.config()
        if (record.agent, record.harness) != (config.agent, config.harness):
            raise StoreError(
                f"{self.directory}: an episode of {record.agent!r} on {record.harness!r} does not belong to "
                f"this run of {config.agent!r} on {config.harness!r}"
            )
        return stamp(record, config.fingerprint, config.suite.checksum)

    def append(self, record: EpisodeRecord) -> None:
        """Append one record and fsync it (taking the run's lock if this process does not hold it)."""
        self.lock()
        line = self.prepare(record).model_dump_json() + "\n"
        try:
            with self.episodes_path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise StoreError(f"writing {self.episodes_path}: {exc.strerror or exc}") from None

    def appender(self) -> Appender:
        self.lock()
        return Appender(self.episodes_path, self.prepare)

    def write_meta(self, meta: dict[str, Any]) -> None:
        tmp = self.meta_path.with_suffix(".json.tmp")
        try:
            tmp.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            tmp.replace(self.meta_path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"writing {self.meta_path}: {exc.strerror or exc}") from None

    def update_meta(self, **changes: Any) -> None:
        self.write_meta({**self.meta(), **changes})

    # -- reading ---------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        return read_meta(self.meta_path)

    def records(self) -> list[EpisodeRecord]:
        """One record per key (a completed retry supersedes a missing attempt)."""
        numbered = parse_lines(self.episodes_path, read_lines(self.episodes_path))
        return [record for _, record in one_per_key(numbered)[0]]

    def rows(self) -> RowStore[EpisodeRow]:
        """One row per key, as `records` chooses them: the keys first (`records.episode_lines`), then
        each chosen line read without its trajectory and transcript (`records.SUMMARY`) and reduced
        to a row before the next; rows past the memory budget wait on disk (`rowstore`), so the
        summary of a large run never holds its episodes, nor the file's text."""
        path = self.episodes_path
        lines = EpisodeLines(path)
        rows: RowStore[EpisodeRow] = RowStore(None, encode_row, decode_row)
        try:
            for _, number, _ in episode_lines(path, lines)[0]:
                rows.append(episode_row(parse_line(path, number, lines[number - 1], drop=SUMMARY), number))
        except SpillError as exc:
            raise StoreError(f"{path}: summarising the run: {exc}") from None
        return rows


class Appender:
    """Appends records to an episodes file: each line is written and flushed at once (a killed process
    loses nothing written) and fsynced by a background thread shortly after, one fsync for all the
    lines written meanwhile. `close()` (or leaving the `with` block) waits for the last fsync. A
    write or fsync that fails (a full disk) raises StoreError at that write or the next one."""

    def __init__(self, path: Path, prepare: Callable[[EpisodeRecord], EpisodeRecord] | None = None) -> None:
        self.path = path
        self._prepare = prepare
        self._handle = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()
        self._dirty = threading.Event()
        self._closing = False
        self._failure: str | None = None
        self._syncer = threading.Thread(target=self._sync_loop, name="episodes-fsync", daemon=True)
        self._syncer.start()

    def write(self, record: EpisodeRecord) -> None:
        self.write_line((self._prepare(record) if self._prepare else record).model_dump_json())

    def write_line(self, line: str) -> None:
        """One record already prepared and serialised (`stamp(...).model_dump_json()`), no newline."""
        with self._lock:  # whole lines only, whichever thread writes
            self._raise_failure()
            try:
                self._handle.write(line + "\n")
                self._handle.flush()
            except OSError as exc:
                self._failure = exc.strerror or str(exc)
                self._raise_failure()
        self._dirty.set()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise StoreError(f"writing {self.path}: {self._failure}")

    def _sync_loop(self) -> None:
        while True:
            self._dirty.wait()
            self._dirty.clear()
            try:
                os.fsync(self._handle.fileno())
            except (OSError, ValueError) as exc:  # ValueError: closed after a failed write
                self._failure = self._failure or getattr(exc, "strerror", None) or str(exc)
                return
            if self._closing and not self._dirty.is_set():
                return

    def close(self) -> None:
        if self._handle.closed:
            return
        self._closing = True
        self._dirty.set()
        self._syncer.join()
        try:
            self._handle.close()
        except OSError as exc:  # the last buffered bytes could not be written
            self._failure = self._failure or exc.strerror or str(exc)

    def __enter__(self) -> Appender:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
        if kind is None:
            self._raise_failure()
