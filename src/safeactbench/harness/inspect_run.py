"""`safeactbench run --model`: drive Inspect AI and land every sample in the run store.

Finished samples are appended by the scorer as they complete (so a killed run keeps them);
samples that Inspect gives up on after its retries are recorded afterwards as *missing* with the
error as the reason — runtime failures, never agent failures.

Performance (docs/performance.md): Inspect's realtime sample buffer (a SQLite database of every
transcript event, for watching samples live in `inspect view`) is off by default here — it cost
about a third of the per-episode time, and the run store already lands every episode as it
finishes; pass `log_realtime=True` to keep it. The finished log is read back only when some planned
sample is not in the store (reading it holds every sample in memory and took seconds). While
Inspect runs, the cyclic garbage collector's thresholds are raised: Inspect allocates millions of
short-lived objects per few hundred samples, and with the default thresholds about a quarter of the
run went to collections (restored afterwards; reference counting still frees acyclic garbage at once).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import eval as inspect_eval

from ..runs.records import ModelTurn, read_numbered
from ..runs.runner import Job, gc_thresholds, missing_record
from ..runs.store import EpisodeKey, RunStore
from ..suite.catalog import get_case
from .generation import Generation
from .inspect_sample import TRANSCRIPT_KEY
from .inspect_task import safeactbench, sample_id
from .runtime import MAX_CONSECUTIVE_FAILURES, RunInterrupted, RunStopped, readable, runtime_reason

RUNTIME_RETRIES = 2
SAMPLES_FILE = ".samples"


class InspectFailed(RuntimeError):
    """Inspect could not run the evaluation at all (a provider that cannot start, a missing key)."""


def inspect_providers() -> set[str]:
    """The model providers Inspect knows (`openai`, `anthropic`, `vllm`, ...; ours: `safeactbench`);
    empty if this Inspect version keeps its registry elsewhere (then Inspect itself reports)."""
    try:
        import inspect_ai.model  # noqa: F401  (registers Inspect's own providers)
        from inspect_ai._util.entrypoints import ensure_entry_points
        from inspect_ai._util.registry import registry_find, registry_unqualified_name

        ensure_entry_points()  # providers of installed packages, ours included
        found = registry_find(lambda info: info.type == "modelapi")
    except (ImportError, AttributeError):
        return set()
    return {registry_unqualified_name(info) for info in found}


def run_with_inspect(
    store: RunStore,
    pending: list[Job],
    *,
    model: str,
    max_concurrency: int,
    model_args: dict[str, Any] | None = None,
    harness: str = "react",
    sandbox: bool = True,
    time_limit: int | None = None,
    retries: int = RUNTIME_RETRIES,
    display: str = "rich",
    log_realtime: bool = False,
    generation: Generation | None = None,
    call_timeout: float | None = None,
    call_retries: int | None = None,
    max_failures: int = MAX_CONSECUTIVE_FAILURES,
    sandbox_binds: tuple[str, ...] = (),
    sandbox_path: tuple[str, ...] = (),
    label: str | None = None,
) -> None:
    """Play `pending` (the planned episodes not yet completed) through Inspect into `store`, with
    the ReAct loop or a family CLI (`harness`, sandboxed unless `sandbox` is False). `generation`
    reaches every model call; `call_timeout` (seconds per attempt) and `call_retries` bound each
    call (Inspect's default retries a failing call for up to 30 minutes). Raises RunStopped when
    `max_failures` episodes in a row failed at runtime (the rest stay unplayed, for `--resume`)."""
    if not pending:
        return
    samples_file = store.directory / SAMPLES_FILE
    samples_file.write_text("".join(sample_id(*job.key) + "\n" for job in pending), encoding="utf-8")
    generation = generation or Generation()
    task = safeactbench(
        run_dir=str(store.directory),
        samples=str(samples_file),
        harness=harness,
        sandbox=sandbox,
        time_limit=time_limit,
        tool_choice=generation.tool_choice,
        max_runtime_failures=max_failures,
        sandbox_bind=list(sandbox_binds),
        sandbox_path=list(sandbox_path),
        label=label,
    )
    limits: dict[str, Any] = {"max_retries": call_retries}
    if call_timeout is not None:
        limits["attempt_timeout"] = max(1, round(call_timeout))
    args = dict(model_args or {})
    base_url = args.pop("base_url", None)  # Inspect takes it as its own argument, not as a model arg
    lines_before = len(read_numbered(store.episodes_path))
    try:
        with gc_thresholds():
            logs = inspect_eval(
                task,
                model=model,
                model_base_url=None if base_url is None else str(base_url),
                model_args=args,
                log_dir=str(store.directory / "inspect-logs"),
                max_samples=max_concurrency,
                max_connections=max_concurrency,
                fail_on_error=False,
                retry_on_error=retries,
                display=display,  # type: ignore[arg-type]
                score_display=False,
                log_realtime=log_realtime,
                **limits,
                **generation.inspect_config(),
            )
    except (ValueError, TypeError, RuntimeError, OSError) as exc:  # raised before any sample ran
        raise InspectFailed(readable(f"Inspect AI could not run {model!r}: {type(exc).__name__}: {exc}")) from None
    # what this evaluation recorded: a pending episode that failed again on --resume is recorded
    # again (its new reason supersedes the old one), one the solver recorded is not recorded twice
    stored = {r.key for _, r in read_numbered(store.episodes_path)[lines_before:]}
    config = store.config()
    stopped: str | None = None
    for log in logs:
        if _all_stored(log, stored):
            continue
        if log.status == "error" and not log.samples and log.error is not None:
            raise InspectFailed(readable(f"Inspect AI stopped: {log.error.message}"))
        for sample in log.samples or []:
            meta = sample.metadata
            key = (str(meta["case_id"]), str(meta["condition"]), int(meta["repetition"]))
            if key in stored:
                continue
            message = str(sample.error.message) if sample.error else "runtime_error: not scored"
            if RunStopped.MARK in message:  # never started: left for --resume, not stored as missing
                stopped = message
                continue
            job = Job(get_case(key[0], key[1]), key[1], key[2])
            record = missing_record(job, config, runtime_reason(message))
            transcript = (sample.store or {}).get(TRANSCRIPT_KEY)
            if transcript:
                record = record.model_copy(update={"transcript": [ModelTurn.model_validate(t) for t in transcript]})
            store.append(record)
            stored.add(key)
    if stopped is not None:
        raise RunStopped(stopped)
    if not logs or any(log.status == "cancelled" for log in logs):  # Ctrl-C: Inspect wound down, returned none
        raise RunInterrupted()


def _all_stored(log: Any, stored: set[EpisodeKey]) -> bool:
    """Whether every sample the log planned (its header's sample ids) is in the store already."""
    ids = log.eval.dataset.sample_ids if log.eval and log.eval.dataset else None
    if ids is None:
        return False
    epochs = log.eval.config.epochs or 1
    if epochs != 1:
        return False
    for sid in ids:
        case_id, _, rest = str(sid).partition("|")
        condition, _, repetition = rest.rpartition("|")
        if not repetition.isdigit() or (case_id, condition, int(repetition)) not in stored:
            return False
    return True
