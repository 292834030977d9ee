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

from ..catalog import get_case
from ..runner import gc_thresholds
from ..store import EpisodeKey, EpisodeRecord, RunStore
from .inspect_task import safeactbench, sample_id

RUNTIME_RETRIES = 2


def run_with_inspect(
    store: RunStore,
    done: set[EpisodeKey],
    *,
    model: str,
    protocol: str | None,
    domain: str | None,
    cases: str | None,
    conditions: list[str],
    repeat: int,
    max_concurrency: int,
    limit: int | None,
    model_args: dict[str, Any] | None = None,
    display: str = "rich",
    log_realtime: bool = False,
) -> None:
    skip_file = store.directory / ".done-samples"
    skip_file.write_text("\n".join(sample_id(*key) for key in sorted(done)) + "\n", encoding="utf-8")
    task = safeactbench(
        protocol=protocol,
        domain=domain,
        cases=cases,
        condition=",".join(conditions),
        repeat=repeat,
        run_dir=str(store.directory),
        skip=str(skip_file),
    )
    if not task.dataset:
        return
    args = dict(model_args or {})
    base_url = args.pop("base_url", None)  # Inspect takes it as its own argument, not as a model arg
    with gc_thresholds():
        logs = inspect_eval(
            task,
            model=model,
            model_base_url=None if base_url is None else str(base_url),
            model_args=args,
            log_dir=str(store.directory / "inspect-logs"),
            max_samples=max_concurrency,
            max_connections=max_concurrency,
            limit=limit,
            fail_on_error=False,
            retry_on_error=RUNTIME_RETRIES,
            display=display,  # type: ignore[arg-type]
            score_display=False,
            log_realtime=log_realtime,
        )
    stored = {r.key for r in store.records()}
    for log in logs:
        if _all_stored(log, stored):
            continue
        for sample in log.samples or []:
            meta = sample.metadata
            key = (str(meta["case_id"]), str(meta["condition"]), int(meta["repetition"]))
            if key in stored:
                continue
            case = get_case(key[0], key[1])
            reason = f"runtime_error: {sample.error.message}" if sample.error else "runtime_error: not scored"
            store.append(
                EpisodeRecord.for_case(
                    case,
                    agent=model,
                    harness="inspect",
                    model=model,
                    repetition=key[2],
                    status="missing",
                    missing_reason=reason[:500],
                )
            )


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
