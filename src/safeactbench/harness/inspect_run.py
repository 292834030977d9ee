"""`safeactbench run --model`: drive Inspect AI and land every sample in the run store.

Finished samples are appended by the scorer as they complete (so a killed run keeps them);
samples that Inspect gives up on after its retries are recorded afterwards as *missing* with the
error as the reason — runtime failures, never agent failures.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import eval as inspect_eval

from ..catalog import get_case
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
    logs = inspect_eval(
        task,
        model=model,
        model_args=model_args or {},
        log_dir=str(store.directory / "inspect-logs"),
        max_samples=max_concurrency,
        max_connections=max_concurrency,
        limit=limit,
        fail_on_error=False,
        retry_on_error=RUNTIME_RETRIES,
        display=display,  # type: ignore[arg-type]
        score_display=False,
    )
    stored = {r.key for r in store.records()}
    for log in logs:
        for sample in log.samples or []:
            meta = sample.metadata
            key = (str(meta["case_id"]), str(meta["condition"]), int(meta["repetition"]))
            if key in stored:
                continue
            case = get_case(key[0], key[1])
            reason = f"runtime_error: {sample.error.message}" if sample.error else "runtime_error: not scored"
            store.append(
                EpisodeRecord(
                    case_id=case.id,
                    protocol=case.protocol,
                    domain=case.domain,
                    family=case.family,
                    agent=model,
                    harness="inspect",
                    model=model,
                    condition=key[1],
                    repetition=key[2],
                    status="missing",
                    missing_reason=reason[:500],
                )
            )
