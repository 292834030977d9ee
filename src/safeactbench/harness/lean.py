"""`safeactbench run --model M --harness lean`: the ReAct loop straight against an OpenAI-compatible
chat-completions endpoint (OpenAI, vLLM, SGLang, llama.cpp, Ollama, LiteLLM, ...), without Inspect.
It was called `native` in earlier versions; the study's "native" is a model's family CLI.

Same episodes as the Inspect harness — the same prompts, tool schemas, idle rule and run store, and
every tool call (unknown tools and invalid JSON included) goes to the episode — with a fraction of
the per-episode cost, for high-concurrency runs (docs/performance.md). Inspect stays the reference
harness. C worker tasks take jobs in plan order; each finished episode is written to the run
store at once. Runtime failures (see `openai_api`) are stored as
`missing` with their reason; an endpoint that refuses requests stops the run (`EndpointRefused`),
and so do `--max-runtime-failures` episodes in a row failing at runtime (`RunStopped`), keeping
every episode already stored for `--resume`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import math
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.model import Case
from ..core.prompts import MAX_IDLE_TURNS, NUDGE, system_prompt, tool_description, user_prompt
from ..core.public import public_view
from ..core.world import InvalidArguments, parse_arguments
from ..runs.runner import Job, gc_thresholds, now_iso, sigterm_unwinds
from ..runs.store import Appender, EpisodeKey, EpisodeRecord, RunStore, StoreError, stamp
from ..suite.catalog import get_case
from .episode_net import unreachable
from .openai_api import ChatClient, Endpoint, EndpointError, EndpointRefused
from .runtime import MAX_CONSECUTIVE_FAILURES, RunHealth, RunStopped
from .tool_lists import ToolListCache
from .transcript import model_turn

HARNESS = "lean"


def _tools_json(case: Case) -> str:
    tools = [
        {
            "type": "function",
            "function": {"name": t["name"], "description": tool_description(t), "parameters": t["parameters"]},
        }
        for t in public_view(case).tools
    ]
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


_TOOLS_JSON = ToolListCache(_tools_json)


def call_arguments(text: str) -> dict[str, Any] | str:
    """A JSON object when the model wrote one (recorded as Inspect records it), else its text as
    written — the episode answers INVALID_ARGUMENTS and the trajectory keeps what the model sent."""
    try:
        return parse_arguments(text)
    except InvalidArguments:
        return text


async def play_episode(job: Job, client: ChatClient, label: str) -> EpisodeRecord:
    """One episode: generate, execute every tool call, until the episode ends or the model stops."""
    case = job.case
    started, clock = now_iso(), time.perf_counter()
    view = public_view(case)
    episode = Episode(case)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(view)},
        {"role": "user", "content": user_prompt(view)},
    ]
    tools_json = _TOOLS_JSON.get(case)
    episode_key = f"{case.id}|{job.condition}|{job.repetition}"
    tool_names = [t["name"] for t in view.tools]
    usage: dict[str, int] = {}
    transcript = []
    idle = 0
    record: dict[str, Any] = {
        "agent": label,
        "harness": HARNESS,
        "model": client.endpoint.named or client.endpoint.model,
        "repetition": job.repetition,
        "seed": job.seed,
    }
    try:
        while not episode.done:
            reply = await client.complete(messages, tools_json, episode_key)
            for key, value in reply.usage.items():
                usage[key] = usage.get(key, 0) + value
            calls = [(c.name, c.arguments) for c in reply.tool_calls]
            transcript.append(model_turn(reply.text, calls, reply.usage, reply.finish_reason, tool_names))
            messages.append(reply.message)
            if not reply.tool_calls:
                idle += 1
                if idle >= MAX_IDLE_TURNS:
                    episode.stop("agent_stopped")
                    break
                messages.append({"role": "user", "content": NUDGE})
                continue
            idle = 0
            for call in reply.tool_calls:  # calls after the end get EPISODE_FINISHED, unrecorded
                observation = episode.call(call.name, call_arguments(call.arguments))
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(observation, ensure_ascii=False)}
                )
    except EndpointRefused:
        raise
    except EndpointError as exc:
        return EpisodeRecord.for_case(
            case, **record, status="missing", missing_reason=str(exc), started_at=started, transcript=transcript
        )
    trajectory = episode.trajectory()
    return EpisodeRecord.for_case(
        case,
        **record,
        trajectory=trajectory,
        verdict=evaluate(case, trajectory),
        started_at=started,
        duration_s=time.perf_counter() - clock,
        usage=usage,
        transcript=transcript,
    )


async def run_jobs(
    jobs: list[Job],
    endpoint: Endpoint,
    label: str,
    concurrency: int,
    land: Callable[[EpisodeRecord], None],
    max_failures: int = MAX_CONSECUTIVE_FAILURES,
) -> None:
    """Play every job with `concurrency` episodes in flight; `land` each record as it finishes.
    When `max_failures` episodes in a row fail at runtime (a wrong URL, an endpoint that went
    down), no new episode starts and RunStopped is raised, instead of failing every episode the same
    way; episodes still in flight are cancelled unstored, so `--resume` plays them."""
    queue: Iterator[Job] = iter(jobs)
    health = RunHealth(max_failures, probe=lambda: unreachable(endpoint.base_url, seconds=2))

    async def worker(client: ChatClient) -> None:
        for job in queue:  # a shared iterator: each job is taken by exactly one worker
            health.check()
            record = await play_episode(job, client, label)
            land(record)
            if record.status == "completed":
                health.completed()
            else:
                health.failed(job.key, record.missing_reason or "runtime_error")

    async with ChatClient(endpoint, connections=concurrency) as client:
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(jobs))):
                    group.create_task(worker(client))
        except* (EndpointRefused, RunStopped, StoreError) as stopped:  # refused, gone, or the disk is full
            raise stopped.exceptions[0] from None


def auto_workers(concurrency: int, cores: int | None = None) -> int:
    """Processes for `--workers 0`: one per ~64 episodes in flight, at most one per core. One event
    loop plays ~150-200 episodes/s of a six-turn agent (docs/performance.md); below ~64 in flight
    against a real model it is never the limit."""
    return max(1, min(cores or os.cpu_count() or 1, math.ceil(concurrency / 64)))


def run_lean(
    store: RunStore,
    jobs: list[Job],
    done: set[EpisodeKey],
    endpoint: Endpoint,
    max_concurrency: int,
    on_episode: Callable[[EpisodeKey], None] | None = None,
    label: str | None = None,
    workers: int = 1,
    max_failures: int = MAX_CONSECUTIVE_FAILURES,
) -> None:
    """Run the jobs not yet done, recorded under `label` (default: the endpoint's model), in
    `workers` processes (0: `auto_workers`) sharing `max_concurrency`. Raises EndpointRefused when
    the endpoint refuses requests (the episodes stored so far stay)."""
    pending = [job for job in jobs if job.key not in done]
    label = label or endpoint.model
    workers = min(workers or auto_workers(max_concurrency), max_concurrency, max(1, len(pending)))
    with store.appender() as appender, gc_thresholds():
        if workers == 1:

            def land(record: EpisodeRecord) -> None:
                appender.write(record)
                if on_episode is not None:
                    on_episode(record.key)

            asyncio.run(run_jobs(pending, endpoint, label, max_concurrency, land, max_failures))
        else:
            config = store.config()  # workers stamp their records as the store would
            stamp_ids = (config.fingerprint, config.suite.checksum)
            run_sharded(
                pending, endpoint, label, max_concurrency, workers, appender, on_episode, stamp_ids, max_failures
            )


# ------------------------------------------------------------------------ worker processes
# Python runs one event loop on one core; past ~150-200 episodes/s the loop itself is the limit.
# `run_sharded` deals the jobs round-robin to `workers` processes (spawned: they import the package
# afresh, no inherited threads), each playing its share with its part of the concurrency. They send
# every finished record back as one JSON line; this process alone writes the store, so lines never
# interleave and resume works as for one process. A worker whose endpoint refuses requests reports
# it and stops; the others stop the same way soon after (the endpoint refuses them too), and every
# record they send until then is still written.
# Workers never outlive this process: each asks the OS to kill it when its parent dies (Linux) and
# watches for that itself too (`_die_with_parent`), so even a SIGKILLed parent leaves none behind
# still calling the endpoint; a SIGTERM unwinds through `run_sharded`, which stops them first.


def run_sharded(
    jobs: list[Job],
    endpoint: Endpoint,
    label: str,
    concurrency: int,
    workers: int,
    appender: Appender,
    on_episode: Callable[[EpisodeKey], None] | None,
    stamp_ids: tuple[str, str],
    max_failures: int = MAX_CONSECUTIVE_FAILURES,
) -> None:
    """Play `jobs` in `workers` processes; they stamp each record with `stamp_ids` (configuration
    fingerprint, suite checksum) and this process writes it."""
    context = multiprocessing.get_context("spawn")
    inbox: Any = context.Queue()
    processes = []
    for index in range(workers):
        share = concurrency // workers + (index < concurrency % workers)
        keys = [job.key for job in jobs[index::workers]]
        processes.append(
            context.Process(
                target=_worker,
                args=(keys, endpoint, label, share, inbox, os.getpid(), stamp_ids, max_failures),
                name=f"safeactbench-lean-{index}",
                daemon=True,
            )
        )
    running, refusal = workers, None
    with sigterm_unwinds():
        try:
            for process in processes:
                process.start()
            while running:
                try:
                    kind, payload = inbox.get(timeout=1.0)
                except queue.Empty:
                    dead = [p for p in processes if p.exitcode not in (None, 0)]
                    if dead:
                        raise RuntimeError(f"lean worker {dead[0].name} died (exit code {dead[0].exitcode})") from None
                    continue
                if kind == "record":
                    key, line = payload
                    appender.write_line(line)
                    if on_episode is not None:
                        on_episode(tuple(key))
                elif kind in ("done", "refused"):  # after a refusal, keep landing what the others finish
                    running -= 1
                    refusal = refusal or (payload if kind == "refused" else None)
                else:  # "error": a worker's unexpected exception, with its traceback
                    raise RuntimeError(f"lean worker failed:\n{payload}")
        finally:
            started = [p for p in processes if p.pid is not None]
            for process in started:  # signal them all first: they stop together, not one by one
                if process.is_alive():
                    process.terminate()
            for process in started:
                process.join(timeout=5)
                if process.is_alive():
                    process.kill()
                    process.join(timeout=5)
    if refusal is not None:
        raise EndpointRefused(refusal)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_POLL_S = 0.5


def _die_with_parent(parent: int) -> None:
    """End this worker when its parent (pid `parent`) ends, however it ends; at once if it already
    has. On Linux the kernel sends SIGKILL on the parent's death (PR_SET_PDEATHSIG; it tracks the
    parent *thread* that started us, which `run_sharded` keeps alive until we are joined). A daemon
    thread also polls for re-parenting: the fallback where prctl is missing (other systems, other
    libcs, seccomp sandboxes)."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):  # no libc or no prctl: the poll suffices
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL))
    # After the prctl: a parent that died before it (while this process was starting) is caught here.
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:  # once the parent dies we are re-parented (to init or a subreaper)
            time.sleep(PARENT_POLL_S)
        os._exit(1)  # no clean-up: nobody is left to receive our records

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _worker(
    keys: list[EpisodeKey],
    endpoint: Endpoint,
    label: str,
    concurrency: int,
    outbox: Any,
    parent: int,
    stamp_ids: tuple[str, str],
    max_failures: int = MAX_CONSECUTIVE_FAILURES,
) -> None:
    """A worker process: play the episodes named by `keys`, send each record back as JSON."""
    _die_with_parent(parent)
    try:
        jobs = [Job(get_case(case_id, condition), condition, repetition) for case_id, condition, repetition in keys]

        def land(record: EpisodeRecord) -> None:
            outbox.put(("record", (record.key, stamp(record, *stamp_ids).model_dump_json())))

        with gc_thresholds():
            asyncio.run(run_jobs(jobs, endpoint, label, concurrency, land, max_failures))
    except (EndpointRefused, RunStopped) as exc:
        outbox.put(("refused", str(exc)))
    except KeyboardInterrupt:
        return
    except BaseException:
        outbox.put(("error", traceback.format_exc()))
    else:
        outbox.put(("done", None))
