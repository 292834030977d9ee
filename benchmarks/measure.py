"""The measurements. Each function returns a plain dict (JSON-serialisable) of numbers and details.

Sizes are parameters so the smoke test can run every measurement in seconds; `python -m benchmarks`
runs them at full size. Timings use `time.perf_counter`; repeated measurements report the median and
the best run. Subprocesses run the real command line (`python -m safeactbench ...`) so start-up,
import, store writes (with their fsync) and evaluation are all included.
"""

from __future__ import annotations

import importlib
import random
import shutil
import statistics
import time
from collections.abc import Sequence
from typing import Any

from .tooling import (
    read_records,
    reference_trajectories,
    run_cli,
    run_measured,
    safeactbench_cmd,
    scratch,
    suite_cases,
    timed_repeats,
)

# ------------------------------------------------------------------------------------ helpers


# --------------------------------------------------------------------------- 1. the evaluator


def evaluator_throughput(n_cases: int | None = None, repeats: int = 5) -> dict[str, Any]:
    """Re-score every reference trajectory by replay: cases/s and µs per trajectory step."""
    from safeactbench.core.evaluator import evaluate

    pairs = reference_trajectories(suite_cases(n_cases))
    steps = sum(len(t.steps) for _, t in pairs)
    scores: list[int] = []

    def score_all() -> None:
        scores.clear()
        scores.extend(evaluate(case, trajectory).score for case, trajectory in pairs)

    timing = timed_repeats(score_all, repeats)
    # the `safeactbench evaluate` path also parses the stored JSON
    texts = [(case, trajectory.model_dump_json()) for case, trajectory in pairs]
    from_json = timed_repeats(lambda: [evaluate(case, text) for case, text in texts], max(1, repeats // 2))
    n = len(pairs)
    return {
        "cases": n,
        "steps": steps,
        "all_success": all(s == 1 for s in scores),
        "repeats": timing["runs"],
        "seconds": timing["best_s"],
        "median_seconds": timing["median_s"],
        "cpu_seconds": timing["cpu_s"],
        "cases_per_s": n / timing["best_s"],
        "cases_per_s_median": n / timing["median_s"],
        "cases_per_cpu_s": n / timing["cpu_s"] if timing["cpu_s"] > 0 else None,
        "us_per_step": 1e6 * timing["best_s"] / max(1, steps),
        "us_per_case": 1e6 * timing["best_s"] / max(1, n),
        "from_json_cases_per_s": n / from_json["best_s"],
    }


# ------------------------------------------------------------------------ 2. episode overhead


def episode_overhead(n_cases: int | None = None, repeats: int = 5) -> dict[str, Any]:
    """µs per Episode.call, by kind, replaying the reference calls on fresh episodes."""
    from safeactbench.core.episode import Episode

    pairs = reference_trajectories(suite_cases(n_cases))
    scripts = [(case, [(s.tool, s.arguments, s.kind) for s in trajectory.steps]) for case, trajectory in pairs]
    best: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for _ in range(max(1, repeats)):
        totals: dict[str, float] = {}
        counts = {}
        clock = time.perf_counter_ns
        for case, calls in scripts:
            t0 = clock()
            episode = Episode(case)
            totals["new_episode"] = totals.get("new_episode", 0.0) + (clock() - t0)
            counts["new_episode"] = counts.get("new_episode", 0) + 1
            for tool, arguments, kind in calls:
                t0 = clock()
                episode.call(tool, arguments)
                elapsed = clock() - t0
                bucket = kind if kind in ("information", "consequential") else "terminal"
                totals[bucket] = totals.get(bucket, 0.0) + elapsed
                counts[bucket] = counts.get(bucket, 0) + 1
        for key, total in totals.items():
            best.setdefault(key, []).append(total / counts[key] / 1000.0)  # µs per call
    per_call = {key: min(values) for key, values in best.items()}  # the least disturbed run
    # the whole in-process loop: agent + episode + evaluation + record, per episode
    from safeactbench.agents import get_agent
    from safeactbench.runs.runner import Job, play_scripted

    agent = get_agent("reference")
    jobs = [Job(case, "original", 0) for case, _ in pairs]
    loop = timed_repeats(lambda: [play_scripted(job, agent) for job in jobs], max(1, repeats // 2))
    return {
        "episodes": len(scripts),
        "calls": counts,
        "us_per_information_call": per_call.get("information"),
        "us_per_consequential_call": per_call.get("consequential"),
        "us_per_terminal_call": per_call.get("terminal"),
        "us_per_new_episode": per_call.get("new_episode"),
        "in_process_ms_per_episode": 1000.0 * loop["best_s"] / max(1, len(jobs)),
    }


# ----------------------------------------------------------------------------- 3. end to end


def startup(repeats: int = 3) -> dict[str, Any]:
    """Seconds to start the command line (`safeactbench --help`: imports and argument parsing)."""
    walls = [run_measured(safeactbench_cmd("--help"), timeout=120).check().wall_s for _ in range(max(1, repeats))]
    return {"best_s": min(walls), "median_s": statistics.median(walls)}


def end_to_end(
    repeats: int = 3, cases: str | None = None, timeout: float = 1800.0, heavy: Sequence[int] = (10, 40)
) -> dict[str, Any]:
    """`safeactbench run --agent reference` on the suite (or `cases`) in a subprocess: wall s, peak RSS.

    As users run it (it also writes OUT/report at the end) and with `--no-report` (the run alone:
    plan, play, evaluate, store); and once with each `--repeat` of `heavy`, report included: memory
    must not grow with the episodes a run holds. `rss_growth` = peak RSS at the largest repeat /
    peak RSS at the smallest (1.0: flat)."""
    out: dict[str, Any] = {}
    extra = ["--cases", cases] if cases else []
    with scratch() as tmp:
        for label, flags in (("default", []), ("no_report", ["--no-report"])):
            walls, rss, cpu = [], [], []
            episodes = success = 0
            for i in range(max(1, repeats)):
                run_dir = tmp / f"{label}{i}"
                measured = run_cli(["--agent", "reference", *extra, *flags], run_dir, timeout=timeout)
                records = read_records(run_dir)
                episodes = len(records)
                success = sum(1 for r in records if (r.get("verdict") or {}).get("score") == 1)
                walls.append(measured.wall_s)
                rss.append(measured.max_rss_mb)
                cpu.append(measured.user_s + measured.sys_s)
            out[label] = {
                "episodes": episodes,
                "successes": success,
                "wall_s": min(walls),
                "median_wall_s": statistics.median(walls),
                "cpu_s": min(cpu),
                "peak_rss_mb": max(rss),
                "repeats": len(walls),
            }
        by_repeat = []
        for repeat in heavy:
            run_dir = tmp / f"heavy{repeat}"
            measured = run_cli(["--agent", "reference", *extra, "--repeat", str(repeat)], run_dir, timeout=timeout)
            by_repeat.append({"repeat": repeat, "episodes": len(read_records(run_dir)), "wall_s": measured.wall_s,
                              "peak_rss_mb": measured.max_rss_mb})  # fmt: skip
            shutil.rmtree(run_dir, ignore_errors=True)
    growth = by_repeat[-1]["peak_rss_mb"] / by_repeat[0]["peak_rss_mb"]
    return {**out["default"], "no_report": out["no_report"], "heavy": by_repeat[-1], "heavy_runs": by_repeat,
            "rss_growth": growth}  # fmt: skip


# -------------------------------------------------------------------------- 4. the Inspect path


def inspect_path(cases: str | None = None, timeout: float = 1800.0, small: int = 1) -> dict[str, Any]:
    """Per-episode cost of `run --model safeactbench/reference` (Inspect) vs `run --agent reference`.

    Both go through the same CLI, run store and evaluator (`--no-report`). The fixed cost (start-up, suite load,
    Inspect's eval set-up and log finalisation) is taken out by also running `--limit small`:
    marginal cost per episode = (wall(all) - wall(small)) / (episodes - small)."""
    extra = ["--cases", cases] if cases else []
    out: dict[str, Any] = {}
    with scratch() as tmp:
        for label, agent_args in (
            ("scripted", ["--agent", "reference"]),
            ("inspect", ["--model", "safeactbench/reference"]),
        ):
            full = run_cli([*agent_args, *extra, "--no-report"], tmp / f"{label}-all", timeout=timeout)
            records = read_records(tmp / f"{label}-all")
            few_args = [*agent_args, *extra, "--no-report", "--limit", str(small)]
            few = run_cli(few_args, tmp / f"{label}-few", timeout=timeout)
            n = len(records)
            marginal = (full.wall_s - few.wall_s) / max(1, n - small)
            out[label] = {
                "episodes": n,
                "successes": sum(1 for r in records if (r.get("verdict") or {}).get("score") == 1),
                "wall_s": full.wall_s,
                "fixed_wall_s": few.wall_s,
                "ms_per_episode": 1000.0 * marginal,
                "ms_per_episode_including_fixed": 1000.0 * full.wall_s / max(1, n),
                "cpu_s": full.user_s + full.sys_s,
                "peak_rss_mb": full.max_rss_mb,
            }
    out["ratio"] = out["inspect"]["ms_per_episode"] / max(1e-9, out["scripted"]["ms_per_episode"])
    return out


# --------------------------------------------------------------------------- 5. concurrency


# ---------------------------------------------------------------------------- 6. statistics


def bootstrap_reference(values: Any, resamples: int, seed: int) -> Any:
    """A plain numpy paired bootstrap (used when analysis.stats has no vectorised Bootstrap):
    means and 95% intervals of every configuration and of every pair's difference."""
    import numpy as np

    rng = np.random.default_rng(seed)
    configs, n = values.shape
    idx = rng.integers(0, n, size=(resamples, n))
    counts = np.zeros((resamples, n))
    np.add.at(counts, (np.arange(resamples)[:, None], idx), 1.0)
    means = counts @ values.T / n  # (resamples x configs)
    i, j = np.triu_indices(configs, k=1)
    deltas = means[:, i] - means[:, j]
    return np.quantile(means, [0.025, 0.975], axis=0), np.quantile(deltas, [0.025, 0.975], axis=0)


def bootstrap_stats(configs: int = 10, cases: int = 570, resamples: int = 10_000, repeats: int = 3) -> dict[str, Any]:
    """Paired case bootstrap over `configs` runs x `cases` cases x `resamples` resamples.

    Times the project's vectorised `analysis.stats.Bootstrap` when it exists: one index matrix,
    every configuration's mean with its interval, and the paired difference of every pair of
    configurations (configs*(configs-1)/2 pairs) with its interval."""
    import numpy as np

    rng = random.Random(7)
    units = [f"case-{i:04d}" for i in range(cases)]
    rows = []
    for c in range(configs):
        p = 0.3 + 0.4 * c / max(1, configs - 1)
        rows.append({u: float(rng.random() < p) for u in units})
    pairs = [(rows[a], rows[b]) for a in range(configs) for b in range(a + 1, configs)]
    try:
        stats_module: Any = importlib.import_module("safeactbench.analysis.stats")
    except ImportError:
        stats_module = None
    Bootstrap = getattr(stats_module, "Bootstrap", None)

    if Bootstrap is not None:

        def project() -> Any:
            boot = Bootstrap(units, resamples=resamples)
            return boot.means(rows), boot.paired_deltas(pairs)

        timing = timed_repeats(project, repeats)
        implementation = "safeactbench.analysis.stats.Bootstrap (means + paired_deltas)"
        first_pair = project()[1][0]
        check = {"delta_estimate": first_pair.estimate, "delta_low": first_pair.low, "delta_high": first_pair.high}
    else:
        matrix = np.array([[row[u] for u in units] for row in rows])
        timing = timed_repeats(lambda: bootstrap_reference(matrix, resamples, 20_240_611), repeats)
        implementation = "numpy reference in benchmarks/measure.py (analysis.stats has no Bootstrap)"
        check = {}
    matrix = np.array([[row[u] for u in units] for row in rows])
    reference = timed_repeats(lambda: bootstrap_reference(matrix, resamples, 20_240_611), repeats)
    return {
        "configs": configs,
        "cases": cases,
        "resamples": resamples,
        "pairs": len(pairs),
        "implementation": implementation,
        "seconds": timing["best_s"],
        "median_seconds": timing["median_s"],
        "numpy_reference_seconds": reference["best_s"],
        "check": check,
    }


# --------------------------------------------------------------------------- 8. CLI harnesses
