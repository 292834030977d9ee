"""Part 5, concurrency: episodes in flight against a served scripted agent with model-like
latency, per harness; throughput, speed-up and efficiency per level."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .tooling import openai_available, read_records, run_cli, scratch, serve_agent, spread, suite_cases


def concurrency_cases(k: int = 32) -> list[str]:
    """`k` interactive cases (V0-V3) evenly spread over the suite: every domain and protocol, so
    each level plays the same mix (per-episode cost depends mostly on the domain's tool list)."""
    return [c.id for c in spread([c for c in suite_cases() if c.protocol.value != "Legacy"], k)]


@dataclass(frozen=True)
class Workload:
    """One series of concurrency levels: a harness, a served agent, episodes per level."""

    name: str
    harness: str  # "lean" or "inspect"
    agent: str  # the scripted agent behind the endpoint
    episodes: Callable[[int], int]


WORKLOADS = (
    # the target: the reference agent's real trajectories (~6 model turns per episode); enough
    # episodes per level (up to 32 C) that the drain at the end is a small part of the run
    Workload("lean", "lean", "reference", lambda c: max(32, min(32 * c, 4096))),
    # the same through Inspect AI (CPU-bound near ~10 episodes/s: fewer episodes)
    Workload("inspect", "inspect", "reference", lambda c: max(32, min(2 * c, 512))),
    # worst case for per-episode cost: one model turn (`submit` at once) per episode
    Workload("lean_one_turn", "lean", "always_defer", lambda c: max(32, min(32 * c, 4096))),
)


QUICK_WORKLOADS = tuple(Workload(w.name, w.harness, w.agent, lambda c: 2 * c) for w in WORKLOADS)


def concurrency(
    levels: Sequence[int] = (1, 16, 64, 256),
    *,
    workloads: Sequence[Workload] = WORKLOADS,
    cases: int = 32,
    latency: float = 0.2,
    jitter: float = 0.02,
    timeout: float = 1800.0,
) -> dict[str, Any]:
    """`safeactbench run --model ... --max-concurrency C` against `safeactbench serve-agent` with a
    fixed latency, for every C and workload.

    Each level plays `cases` spread interactive cases, repeated to the workload's episode count.
    Throughput = N / (last response - first request), from the server's clock: the whole run, its
    ramp-up and its drain (the last episodes running while slots empty for want of work) included.
    Efficiency = throughput / ideal, ideal = C / (mean episode latency at C = 1, same workload).
    Latency ratio = latency(1) / latency(C): how much each episode slowed down under load;
    utilisation = throughput x latency(C) / C (Little's law: the share of the C slots busy)."""
    ids = concurrency_cases(cases)
    out: dict[str, Any] = {"latency_s": latency, "jitter_s": jitter, "cases": len(ids), "runs": {}}
    for workload in workloads:
        if workload.harness == "inspect" and not openai_available():
            out["runs"][workload.name] = {
                "skipped": "the `openai` package is not installed (pip install 'openai>=3.4')"
            }
            continue
        rows = []
        with scratch() as tmp:
            for level in levels:
                repeat = max(1, math.ceil(workload.episodes(level) / len(ids)))
                rows.append(_concurrency_level(workload, level, ids, repeat, tmp, latency, jitter, timeout))
        _efficiencies(rows)
        out["runs"][workload.name] = {"harness": workload.harness, "agent": workload.agent, "levels": rows}
    return out


def _concurrency_level(
    workload: Workload,
    level: int,
    ids: list[str],
    repeat: int,
    tmp: Path,
    latency: float,
    jitter: float,
    timeout: float,
) -> dict[str, Any]:
    server = serve_agent(tmp, workload.agent, latency=latency, jitter=jitter, max_seconds=timeout)
    run_dir = tmp / f"{workload.name}-c{level}"
    args = ["--model", f"openai/{workload.agent}", "--model-arg", f"base_url={server.base_url}", "--no-report"]
    args += ["--max-concurrency", str(level), "--cases", ",".join(ids), "--repeat", str(repeat)]
    if workload.harness == "lean":
        args += ["--harness", "lean"]
    else:
        args += ["--model-arg", "responses_api=false"]
    try:
        measured = run_cli(args, run_dir, env={"OPENAI_API_KEY": "sk-local-served-agent"}, timeout=timeout)
    finally:
        stats = server.shutdown()
    records = read_records(run_dir)
    completed = [r for r in records if r.get("status") == "completed"]
    durations = [float(r["duration_s"]) for r in completed]
    window = (stats.get("last_response") or 0.0) - (stats.get("first_request") or 0.0)
    n = len(completed)
    return {
        "concurrency": level,
        "workers": _workers_used(workload.harness, level),
        "episodes": len(records),
        "completed": n,
        "successes": sum(1 for r in completed if (r.get("verdict") or {}).get("score") == 1),
        "requests": stats.get("completions"),
        "server_errors": stats.get("errors"),
        "peak_in_flight": stats.get("peak_in_flight"),
        "window_s": window,
        "wall_s": measured.wall_s,
        "throughput_eps": n / window if window > 0 else None,
        "mean_latency_s": statistics.fmean(durations) if durations else None,
        "p95_latency_s": _quantile(durations, 0.95),
        "turns_per_episode": (stats.get("completions") or 0) / n if n else None,
        "server_cpu_s": stats.get("cpu_s"),
        "client_cpu_s": measured.user_s + measured.sys_s,
        "client_peak_rss_mb": measured.max_rss_mb,
    }


def _workers_used(harness: str, level: int) -> int:
    if harness != "lean":
        return 1
    from safeactbench.harness.lean import auto_workers

    return auto_workers(level)


def _efficiencies(rows: list[dict[str, Any]]) -> None:
    base = next((r["mean_latency_s"] for r in rows if r["concurrency"] == 1 and r["mean_latency_s"]), None)
    base = base or (rows[0]["mean_latency_s"] if rows else None)
    for row in rows:
        c, lat, throughput = row["concurrency"], row["mean_latency_s"], row["throughput_eps"]
        row["baseline_latency_s"] = base
        row["ideal_eps"] = c / base if base else None
        row["efficiency"] = throughput / row["ideal_eps"] if throughput and row["ideal_eps"] else None
        row["latency_ratio"] = base / lat if base and lat else None
        row["utilisation"] = throughput * lat / c if throughput and lat else None


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
