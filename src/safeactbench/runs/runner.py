"""Running many episodes: plan (case x condition x repetition), execute, evaluate, store, resume."""

from __future__ import annotations

import contextlib
import gc
import platform
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from ..agents import Agent
from ..core.episode import Episode, episode_seed
from ..core.evaluator import evaluate
from ..core.model import Case
from ..core.public import public_view
from ..core.version import __version__
from ..suite.catalog import played
from .runconfig import RunConfig, active_suite
from .store import EpisodeKey, EpisodeRecord, RunStore

GC_THRESHOLDS = (10_000, 10, 10)  # CPython's defaults are (700, 10, 10)


@contextlib.contextmanager
def gc_thresholds(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> Iterator[None]:
    """Collect less often while the block runs (never more often than the current setting), and leave
    the objects that exist already (the suite, above all) out of every collection: model harnesses
    and the agent server allocate millions of short-lived objects, and with the default thresholds
    a quarter to half of their CPU went to collections that scanned the whole suite again and again
    (docs/performance.md). Reference counting still frees acyclic garbage at once."""
    previous = gc.get_threshold()
    gc.set_threshold(*(max(new, old) if old else old for new, old in zip(thresholds, previous, strict=True)))
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*previous)


@dataclass(frozen=True)
class Job:
    case: Case
    condition: str
    repetition: int

    @property
    def key(self) -> EpisodeKey:
        return (self.case.id, self.condition, self.repetition)

    @property
    def seed(self) -> int:
        return episode_seed(self.case.id, self.condition, self.repetition)


def plan(cases: Iterable[Case], conditions: Iterable[str] = ("original",), repeat: int = 1) -> list[Job]:
    """Jobs for every case under every condition it takes, `repeat` times."""
    variants = played(list(cases), conditions)
    return [Job(c, c.condition, r) for r in range(repeat) for c in variants]


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def run_metadata(**extra: Any) -> dict[str, Any]:
    """What run.json records besides the configuration: versions, where the code came from, when."""
    return {
        "created_at": now_iso(),
        "package_version": __version__,
        "suite_version": active_suite().version,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        **extra,
    }


def missing_record(job: Job, config: RunConfig, reason: str) -> EpisodeRecord:
    """A runtime failure of `job` under `config`: stored, never scored (SPEC §6)."""
    return EpisodeRecord.for_case(
        job.case,
        agent=config.agent,
        harness=config.harness,
        model=config.model,
        repetition=job.repetition,
        seed=job.seed,
        status="missing",
        missing_reason=reason,
        started_at=now_iso(),
    )


def play_scripted(job: Job, agent: Agent) -> EpisodeRecord:
    """One in-process episode of a scripted agent, evaluated."""
    started = now_iso()
    clock = time.perf_counter()
    episode = Episode(job.case)
    agent.play(episode, public_view(job.case), random.Random(job.seed))
    episode.stop()
    trajectory = episode.trajectory()
    verdict = evaluate(job.case, trajectory)
    return EpisodeRecord.for_case(
        job.case,
        agent=agent.name,
        harness="scripted",
        repetition=job.repetition,
        seed=job.seed,
        trajectory=trajectory,
        verdict=verdict,
        started_at=started,
        duration_s=time.perf_counter() - clock,
    )


class StopRun(Exception):
    """Raised by a harness's `play`: this episode is not stored and no new one starts (the run's
    endpoint is gone, or the run was interrupted). `execute` lets the episodes in flight land, then
    raises it; `--resume` plays what was not stored."""


def execute(
    jobs: list[Job],
    play: Callable[[Job], EpisodeRecord],
    store: RunStore,
    done: set[EpisodeKey],
    on_episode: Callable[[EpisodeRecord], None] | None = None,
    workers: int = 1,
    interrupt: Callable[[], None] | None = None,
) -> int:
    """Run every job not yet done; each record is appended (by this thread) as soon as it finishes
    and not kept (a run's memory does not grow with its episodes). Returns how many were written.
    An episode whose harness raises is stored as missing with the error as its reason and the run
    goes on, but for `StopRun` (see there); a store that cannot be written (a full disk) stops the
    run with a StoreError. On Ctrl-C or SIGTERM, `interrupt` stops the episodes in flight (the
    harness then raises StopRun for each: nothing half-played is stored)."""
    pending = [job for job in jobs if job.key not in done]
    config = store.config()
    written = 0
    stopped: list[StopRun] = []

    def guarded(job: Job) -> EpisodeRecord | None:
        try:
            return play(job)
        except StopRun as exc:
            stopped.append(exc)
            return None
        except Exception as exc:
            return missing_record(job, config, f"harness_error: {type(exc).__name__}: {exc}")

    with store.appender() as appender, sigterm_unwinds():

        def land(record: EpisodeRecord | None) -> None:
            nonlocal written
            if record is None:
                return
            appender.write(record)
            written += 1
            if on_episode:
                on_episode(record)

        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            futures = []
            for job in pending:  # one at a time without workers, so a stop starts nothing more
                if workers <= 1:
                    land(guarded(job))
                    if stopped:
                        break
                else:
                    futures.append(pool.submit(guarded, job))
            for future in as_completed(futures):
                land(future.result())
                if stopped:  # no new episode; those in flight still land
                    pool.shutdown(wait=False, cancel_futures=True)
        except BaseException:
            if interrupt is not None:
                interrupt()
            raise
        finally:  # on an error, episodes not yet started are not started
            pool.shutdown(wait=True, cancel_futures=True)
    if stopped:
        raise stopped[0]
    return written


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While episodes run, SIGTERM raises SystemExit(143) here instead of ending this process on
    the spot, so `finally` blocks run: the episodes are stopped and the run store closed, as SIGINT
    (KeyboardInterrupt) already does. Only in the main thread (where handlers run) and only over
    the default action: a handler someone installed, or an ignored SIGTERM, is left alone."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def unwind(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, unwind)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def finish(store: RunStore) -> dict[str, Any]:
    records = store.rows()
    completed = sum(r.status == "completed" for r in records)
    missing: dict[str, int] = {}
    for r in records:
        if r.status == "missing":
            reason = (r.missing_reason or "unknown").split(":")[0]
            missing[reason] = missing.get(reason, 0) + 1
    usage: dict[str, int] = {}
    for r in records:
        for k, v in r.usage.items():
            usage[k] = usage.get(k, 0) + v
    store.update_meta(finished_at=now_iso(), completed=completed, missing=missing, usage=usage)
    return store.meta()
