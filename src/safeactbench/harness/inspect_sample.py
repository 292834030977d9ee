"""What every SafeActBench solver shares: the sample's store keys (the scorer reads them), its
case, when its episode started, and the run's health around a play (`supervised`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from inspect_ai.solver import Generate, Solver, TaskState

from ..core.model import Case
from ..runs.runner import now_iso
from ..suite.catalog import get_case
from .episode_net import unreachable
from .runtime import RunHealth, RunStopped, RuntimeFailure, runtime_reason

TRAJECTORY_KEY = "safeactbench:trajectory"
USAGE_KEY = "safeactbench:usage"
TRANSCRIPT_KEY = "safeactbench:transcript"
STARTED_KEY = "safeactbench:started"


def episode_case(state: TaskState) -> Case:
    return get_case(str(state.metadata["case_id"]), str(state.metadata.get("condition", "original")))


def record_start(state: TaskState) -> None:
    """When the episode started (wall clock for the record, a monotonic clock for its duration)."""
    state.store.set(STARTED_KEY, [now_iso(), time.perf_counter()])


def supervised(play: Callable[[TaskState], Awaitable[None]], max_failures: int) -> Solver:
    """`play` as a solver under the run's health: a model call that fails after Inspect's retries
    fails the sample with a `RuntimeFailure` whose message is the missing reason (never an agent
    that stopped); once `max_failures` episodes in a row failed so, no new episode starts."""
    health = RunHealth(max_failures, probe=_model_endpoint_probe)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        health.check()
        try:
            await play(state)
        except RunStopped:
            raise
        except RuntimeFailure as exc:
            health.failed(state.sample_id, exc.message)
            raise
        except Exception as exc:  # the model API failed after Inspect's retries
            reason = runtime_reason(f"{type(exc).__name__}: {exc}", "--call-timeout, --call-retries")
            health.failed(state.sample_id, reason)
            raise RuntimeFailure(reason) from exc
        health.completed()
        return state

    return solve


def _model_endpoint_probe() -> str | None:
    """Why nothing answers at the sample's model endpoint, or None (also for a model without one)."""
    from inspect_ai.model import get_model

    base_url = get_model().api.base_url
    return None if not base_url else unreachable(base_url, seconds=2)
