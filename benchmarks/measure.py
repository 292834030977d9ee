"""The measurements. Each function returns a plain dict (JSON-serialisable) of numbers and details.

Sizes are parameters so the smoke test can run every measurement in seconds; `python -m benchmarks`
runs them at full size. Timings use `time.perf_counter`; repeated measurements report the median and
the best run. Subprocesses run the real command line (`python -m safeactbench ...`) so start-up,
import, store writes (with their fsync) and evaluation are all included.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

# ------------------------------------------------------------------------------------ helpers


def timed_repeats(fn: Callable[[], Any], repeats: int) -> dict[str, float]:
    """Run `fn` `repeats` times: wall seconds (best and median) and this process's CPU seconds
    (best). On a shared machine the best run is the one least disturbed by other work, and CPU time
    is not inflated by waiting for a core; on an idle core the two agree."""
    walls, cpus = [], []
    for _ in range(max(1, repeats)):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return {"median_s": statistics.median(walls), "best_s": min(walls), "cpu_s": min(cpus), "runs": len(walls)}


@dataclass
class Measured:
    """A finished subprocess: wall time, its own peak RSS (from wait4) and its output."""

    cmd: list[str]
    returncode: int
    wall_s: float
    max_rss_mb: float
    user_s: float
    sys_s: float
    stdout: str
    stderr: str
    timed_out: bool = False

    def check(self) -> Measured:
        if self.returncode != 0 or self.timed_out:
            tail = (self.stderr or self.stdout)[-2000:]
            raise RuntimeError(f"{' '.join(self.cmd)} exited {self.returncode} (timed out: {self.timed_out}):\n{tail}")
        return self


def run_measured(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, timeout: float = 900.0, cwd: Path | None = None
) -> Measured:
    """Run `cmd` to completion; `os.wait4` gives the rusage (peak RSS, CPU) of this child alone."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", **(env or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(cmd), stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=full_env, cwd=cwd or ROOT
        )
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            cmd=list(cmd),
            returncode=proc.returncode,
            wall_s=wall,
            max_rss_mb=usage.ru_maxrss / 1024.0,  # Linux reports KiB
            user_s=usage.ru_utime,
            sys_s=usage.ru_stime,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            timed_out=timed_out.is_set(),
        )


@contextlib.contextmanager
def scratch(prefix: str = "sab-bench-") -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def safeactbench_cmd(*args: str) -> list[str]:
    return [PYTHON, "-m", "safeactbench", *args]


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "episodes.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def suite_cases(limit: int | None = None) -> list[Any]:
    from safeactbench.suite.data import load_suite

    cases = list(load_suite())
    return cases if limit is None else spread(cases, limit)


def spread(items: Sequence[Any], n: int) -> list[Any]:
    """`n` items evenly spaced over the list (so a small sample covers every protocol)."""
    if n >= len(items):
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def reference_trajectories(cases: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(case, trajectory) of the reference agent on every case, played in process (untimed)."""
    from safeactbench.agents import get_agent
    from safeactbench.runner import Job, play_scripted

    agent = get_agent("reference")
    out = []
    for case in cases:
        record = play_scripted(Job(case, "original", 0), agent)
        out.append((case, record.trajectory))
    return out


# --------------------------------------------------------------------------- 1. the evaluator


def evaluator_throughput(n_cases: int | None = None, repeats: int = 5) -> dict[str, Any]:
    """Re-score every reference trajectory by replay: cases/s and µs per trajectory step."""
    from safeactbench.evaluator import evaluate

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
    from safeactbench.episode import Episode

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
    from safeactbench.runner import Job, play_scripted

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


def _run_cli(args: Sequence[str], run_dir: Path, *, env: dict[str, str] | None = None, timeout: float) -> Measured:
    return run_measured(safeactbench_cmd("run", *args, "--out", str(run_dir)), env=env, timeout=timeout).check()


def startup(repeats: int = 3) -> dict[str, Any]:
    """Seconds to start the command line (`safeactbench --help`: imports and argument parsing)."""
    walls = [run_measured(safeactbench_cmd("--help"), timeout=120).check().wall_s for _ in range(max(1, repeats))]
    return {"best_s": min(walls), "median_s": statistics.median(walls)}


def end_to_end(repeats: int = 3, cases: str | None = None, timeout: float = 600.0) -> dict[str, Any]:
    """`safeactbench run --agent reference` on the suite (or `cases`) in a subprocess: wall s, peak RSS.

    As users run it (it also writes OUT/report at the end) and with `--no-report` (the run alone:
    plan, play, evaluate, store)."""
    out: dict[str, Any] = {}
    extra = ["--cases", cases] if cases else []
    with scratch() as tmp:
        for label, flags in (("default", []), ("no_report", ["--no-report"])):
            walls, rss, cpu = [], [], []
            episodes = success = 0
            for i in range(max(1, repeats)):
                run_dir = tmp / f"{label}{i}"
                measured = _run_cli(["--agent", "reference", *extra, *flags], run_dir, timeout=timeout)
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
    return {**out["default"], "no_report": out["no_report"]}


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
            full = _run_cli([*agent_args, *extra, "--no-report"], tmp / f"{label}-all", timeout=timeout)
            records = read_records(tmp / f"{label}-all")
            few_args = [*agent_args, *extra, "--no-report", "--limit", str(small)]
            few = _run_cli(few_args, tmp / f"{label}-few", timeout=timeout)
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


@dataclass
class MockHandle:
    proc: subprocess.Popen[bytes]
    port: int
    stats_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def shutdown(self, timeout: float = 10.0) -> dict[str, Any]:
        """Ask the server to stop (it also stops by itself); returns its statistics."""
        with contextlib.suppress(OSError):
            request = urllib.request.Request(f"http://127.0.0.1:{self.port}/shutdown", data=b"", method="POST")
            urllib.request.urlopen(request, timeout=5).read()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        if self.stats_path.exists():
            return json.loads(self.stats_path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        return {}


def start_mock(
    directory: Path,
    *,
    latency: float = 0.2,
    jitter: float = 0.02,
    calls: int = 1,
    max_requests: int = 10_000,
    max_seconds: float = 900.0,
    idle_exit: float = 60.0,
) -> MockHandle:
    stats_path = directory / "mock-stats.json"
    cmd = [
        PYTHON,
        "-m",
        "benchmarks.mock_openai",
        "--latency",
        str(latency),
        "--jitter",
        str(jitter),
        "--calls",
        str(calls),
        "--max-requests",
        str(max_requests),
        "--max-seconds",
        str(max_seconds),
        "--idle-exit",
        str(idle_exit),
        "--stats",
        str(stats_path),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"mock server did not start: {line!r}")
    return MockHandle(proc, int(line.split()[1]), stats_path)


def openai_available() -> bool:
    try:
        import openai  # noqa: F401
    except ImportError:
        return False
    return True


def concurrency_cases(k: int = 32) -> list[str]:
    """`k` interactive cases (V0-V3) evenly spread over the suite: every domain and protocol, so
    each level plays the same mix (per-episode cost depends mostly on the domain's tool list)."""
    return [c.id for c in spread([c for c in suite_cases() if c.protocol.value != "Legacy"], k)]


def concurrency(
    levels: Sequence[int] = (1, 16, 64, 256),
    *,
    episodes: Callable[[int], int] | None = None,
    cases: int = 32,
    latency: float = 0.2,
    jitter: float = 0.02,
    calls: int = 1,
    timeout: float = 900.0,
    native: bool = True,
) -> dict[str, Any]:
    """`run --model openai/mock --max-concurrency C` against the local mock, for every C.

    Each level plays `cases` spread interactive cases, repeated (`--repeat`) to at least
    `episodes(C)` episodes (default 4C, at least 32, at most 1024). throughput = episodes / (last
    response - first request) as seen by the server (start-up and log finalisation excluded);
    latency = mean episode duration from the run store. The ideal at C is C / (mean episode
    latency at C=1): linear scaling from one unloaded episode. Also reported: the slot utilisation
    (throughput x latency(C) / C, Little's law) and the bound set by the model latency alone
    (C / (calls x latency)). With `native`, the same episodes also run through
    `benchmarks/native_loop.py` (plain httpx + asyncio, no Inspect) for comparison."""
    if not openai_available():
        return {"skipped": "the `openai` package is not installed (pip install 'openai>=3.4')"}
    count = episodes or (lambda c: max(32, min(4 * c, 1024)))
    ids = concurrency_cases(cases)
    out: dict[str, Any] = {
        "latency_s": latency,
        "jitter_s": jitter,
        "calls_per_episode": calls,
        "cases": len(ids),
    }
    for harness in ("inspect", "native") if native else ("inspect",):
        rows = []
        with scratch() as tmp:
            for level in levels:
                repeat = max(1, math.ceil(count(level) / len(ids)))
                rows.append(_concurrency_level(harness, level, ids, repeat, tmp, latency, jitter, calls, timeout))
        _efficiencies(rows, calls, latency)
        if harness == "inspect":
            out["baseline_latency_s"] = rows[0]["baseline_latency_s"] if rows else None
            out["levels"] = rows
        else:
            out["native"] = rows
    return out


def _concurrency_level(
    harness: str,
    level: int,
    ids: list[str],
    repeat: int,
    tmp: Path,
    latency: float,
    jitter: float,
    calls: int,
    timeout: float,
) -> dict[str, Any]:
    n = repeat * len(ids)
    mock = start_mock(
        tmp, latency=latency, jitter=jitter, calls=calls, max_requests=n * calls * 4 + 100, max_seconds=timeout
    )
    run_dir = tmp / f"{harness}-c{level}"
    try:
        if harness == "inspect":
            args = ["--model", "openai/mock", "--model-arg", "responses_api=false", "--no-report"]
            args += ["--max-concurrency", str(level), "--cases", ",".join(ids), "--repeat", str(repeat)]
            env = {"OPENAI_BASE_URL": mock.base_url, "OPENAI_API_KEY": "sk-dummy-local-mock"}
            measured = _run_cli(args, run_dir, env=env, timeout=timeout)
        else:
            cmd = [PYTHON, "-m", "benchmarks.native_loop", "--base-url", mock.base_url, "--cases", ",".join(ids)]
            cmd += ["--repeat", str(repeat), "--concurrency", str(level), "--out", str(run_dir)]
            measured = run_measured(cmd, timeout=timeout).check()
    finally:
        stats = mock.shutdown()
    records = read_records(run_dir)
    completed = [r for r in records if r.get("status") == "completed"]
    durations = [float(r["duration_s"]) for r in completed]
    window = (stats.get("last_response") or 0) - (stats.get("first_request") or 0)
    return {
        "concurrency": level,
        "episodes": len(records),
        "completed": len(completed),
        "requests": stats.get("completions"),
        "server_errors": stats.get("errors"),
        "peak_in_flight": stats.get("peak_in_flight"),
        "window_s": window,
        "wall_s": measured.wall_s,
        "throughput_eps": len(completed) / window if window > 0 else None,
        "mean_latency_s": statistics.fmean(durations) if durations else None,
        "p95_latency_s": _quantile(durations, 0.95),
        "server_mean_latency_s": stats.get("mean_latency_s"),
        "server_cpu_s": stats.get("cpu_s"),
        "client_cpu_s": measured.user_s + measured.sys_s,
        "client_peak_rss_mb": measured.max_rss_mb,
    }


def _efficiencies(rows: list[dict[str, Any]], calls: int, latency: float) -> None:
    base = next((r["mean_latency_s"] for r in rows if r["concurrency"] == 1 and r["mean_latency_s"]), None)
    base = base or (rows[0]["mean_latency_s"] if rows else None)
    for row in rows:
        throughput, lat = row["throughput_eps"], row["mean_latency_s"]
        c = row["concurrency"]
        row["baseline_latency_s"] = base
        row["ideal_eps"] = c / base if base else None
        row["efficiency"] = throughput / row["ideal_eps"] if throughput and row["ideal_eps"] else None
        row["utilisation"] = throughput * lat / c if throughput and lat else None
        row["model_bound_eps"] = c / (calls * latency)
        row["efficiency_vs_model"] = throughput / row["model_bound_eps"] if throughput else None


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
