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
import signal
import statistics
import subprocess
import sys
import tempfile
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
    """Run `cmd` to completion through `benchmarks.launch`, whose `wait4` gives the rusage (peak RSS,
    CPU) of this command alone - not inflated by this (possibly large) process's own peak, which
    Linux would otherwise count in a child it spawns directly."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", **(env or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        usage_path = Path(tmp) / "usage.json"
        start = time.perf_counter()
        proc = subprocess.Popen(
            [PYTHON, "-m", "benchmarks.launch", str(usage_path), *cmd],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env={**full_env, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), full_env.get("PYTHONPATH")]))},
            cwd=cwd or ROOT,
            start_new_session=True,  # a timeout ends the launcher and the command together
        )
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        wall = time.perf_counter() - start
        usage = json.loads(usage_path.read_text()) if usage_path.exists() else {}
        out.seek(0)
        err.seek(0)
        return Measured(
            cmd=list(cmd),
            returncode=int(usage["returncode"]) if "returncode" in usage else (proc.returncode or -9),
            wall_s=wall,
            max_rss_mb=usage.get("max_rss_kb", 0) / 1024.0,
            user_s=float(usage.get("user_s", 0.0)),
            sys_s=float(usage.get("sys_s", 0.0)),
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            timed_out=timed_out,
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
    from safeactbench.runs.runner import Job, play_scripted

    agent = get_agent("reference")
    out = []
    for case in cases:
        record = play_scripted(Job(case, "original", 0), agent)
        out.append((case, record.trajectory))
    return out


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


def _run_cli(args: Sequence[str], run_dir: Path, *, env: dict[str, str] | None = None, timeout: float) -> Measured:
    return run_measured(safeactbench_cmd("run", *args, "--out", str(run_dir)), env=env, timeout=timeout).check()


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
        by_repeat = []
        for repeat in heavy:
            run_dir = tmp / f"heavy{repeat}"
            measured = _run_cli(["--agent", "reference", *extra, "--repeat", str(repeat)], run_dir, timeout=timeout)
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
class ServedAgent:
    """`safeactbench serve-agent` in its own process (127.0.0.1 only; it also stops by itself)."""

    proc: subprocess.Popen[bytes]
    base_url: str
    stats_path: Path

    def shutdown(self, timeout: float = 10.0) -> dict[str, Any]:
        """Stop the server; returns its statistics."""
        with contextlib.suppress(OSError):
            root = self.base_url.removesuffix("/v1")
            urllib.request.urlopen(urllib.request.Request(f"{root}/shutdown", data=b"", method="POST"), timeout=5)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        if self.stats_path.exists():
            return json.loads(self.stats_path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        return {}


def serve_agent(
    directory: Path, agent: str, *, latency: float, jitter: float, max_seconds: float = 1800.0
) -> ServedAgent:
    stats_path = directory / f"server-{agent}.json"
    cmd = safeactbench_cmd("serve-agent", agent, "--latency", str(latency), "--jitter", str(jitter))
    cmd += ["--max-seconds", str(max_seconds), "--idle-exit", "120", "--stats", str(stats_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if " at http://127.0.0.1:" not in line:
        proc.kill()
        raise RuntimeError(f"serve-agent did not start: {line!r}")
    return ServedAgent(proc, line.rsplit(" at ", 1)[1], stats_path)


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
        measured = _run_cli(args, run_dir, env={"OPENAI_API_KEY": "sk-local-served-agent"}, timeout=timeout)
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

CLI_CASES = "SAB-L-001,SAB-V0-001,SAB-V1-001,SAB-V1-025,SAB-V2-001,SAB-V2-033,SAB-V3-022,SAB-V3-111"
THIN_CLI = Path(__file__).resolve().parent / "thin_cli.py"


def _fit(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least squares `y = a + b x`: (a, b)."""
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def _episode_costs(run_dir: Path) -> dict[str, Any]:
    """Per episode (the fit's intercept) and per model turn (its slope) of the records' `duration_s`,
    the turns being the reference's calls plus its closing turn. The run's first episode (warm-up:
    imports, first connections) is left out of the fit and shown apart."""
    records = read_records(run_dir)
    first, *rest = sorted(records, key=lambda r: r["started_at"])
    points = [(len(r["trajectory"]["steps"]) + 1.0, float(r["duration_s"])) for r in rest]
    per_episode, per_step = _fit(points)
    return {
        "episodes": len(records),
        "successes": sum(1 for r in records if (r.get("verdict") or {}).get("score") == 1),
        "steps": sum(len(r["trajectory"]["steps"]) for r in records),
        "first_s": float(first["duration_s"]),
        "mean_s": statistics.mean(y for _, y in points),
        "per_episode_s": per_episode,
        "per_step_s": per_step,
    }


def _turns_seen(run_dir: Path) -> dict[str, float]:
    """The thinnest CLI's own clock: seconds per turn (its model request and the tool call it made),
    from the last line of every episode's log."""
    turns = [
        t
        for log in sorted((run_dir / "work").glob("*/harness.log"))
        for t in json.loads(log.read_text(encoding="utf-8").strip().splitlines()[-1])["turns_s"]
    ]
    return {"turns": len(turns), "turn_median_s": statistics.median(turns), "turn_mean_s": statistics.mean(turns)}


def cli_harnesses(cases: str = CLI_CASES, timeout: float = 1800.0, with_codex: bool = True) -> dict[str, Any]:
    """What a CLI harness itself costs, next to the ReAct path on the same cases, one episode at a
    time (no queueing), the scripted reference as the model (no model compute).

    - `react`: `run --model safeactbench/reference` (Inspect's ReAct loop, no sandbox);
    - `command_thin`: `--harness-cmd` with the thinnest CLI (`thin_cli.py`: stdlib, a Python start-up
      and a little JSON) against `serve-agent`: the sandbox, its network, the tool server, the relay;
    - `family_thin`: the family path (`--harness codex-cli`: the Inspect task, sandbox, tool server,
      the model route over Inspect) with the thinnest CLI in place of Codex (`family_thin.py`);
    - `command_codex` / `family_codex`: Codex CLI under `--harness-cmd @codex` (serve-agent) and as
      `--harness codex-cli`: what a real CLI adds.

    From each run's records, `duration_s` against the episode's model turns: the intercept is the
    per-episode cost, the slope the per-step cost; the thinnest CLI also times each of its turns.
    `with_codex` False leaves out the Codex rows and the concurrency run (the smoke test)."""
    out: dict[str, Any] = {"cases": cases.split(",")}
    base = ["--cases", cases, "--max-concurrency", "1", "--no-report"]
    codex = with_codex and shutil.which("codex") is not None and shutil.which("bwrap") is not None
    with scratch() as tmp:
        _run_cli(["--model", "safeactbench/reference", *base], tmp / "react", timeout=timeout)
        out["react"] = _episode_costs(tmp / "react")
        if shutil.which("bwrap") is None:
            return out
        shown = tmp / "cli"
        shown.mkdir()
        shutil.copy(THIN_CLI, shown / "thin_cli.py")
        served = serve_agent(tmp, "reference", latency=0.0, jitter=0.0)
        try:
            thin = f"python3 -I -S {shown / 'thin_cli.py'} {{base_url}} {{mcp_url}} {{prompt_file}} {{model}}"
            command = ["--model", "reference", "--base-url", served.base_url, "--sandbox-bind", str(shown)]
            _run_cli(["--harness-cmd", thin, *command, *base], tmp / "command_thin", timeout=timeout)
            out["command_thin"] = _episode_costs(tmp / "command_thin") | _turns_seen(tmp / "command_thin")
            if codex:
                _run_cli(["--harness-cmd", "@codex", *command, *base], tmp / "command_codex", timeout=timeout)
                out["command_codex"] = _episode_costs(tmp / "command_codex")
        finally:
            served.shutdown()
        if codex:
            family = ["--model", "safeactbench/reference", "--harness", "codex-cli", *base]
            _run_cli(family, tmp / "family_codex", timeout=timeout)
            out["family_codex"] = _episode_costs(tmp / "family_codex")
        family_thin = [PYTHON, "-m", "benchmarks.family_thin", str(tmp / "family_thin"), cases, str(shown)]
        run_measured(family_thin, timeout=timeout).check()
        out["family_thin"] = _episode_costs(tmp / "family_thin") | _turns_seen(tmp / "family_thin")
        if codex:
            at_four = ["--model", "safeactbench/reference", "--harness", "codex-cli", "--cases", cases,
                       "--max-concurrency", "4", "--no-report"]  # fmt: skip
            parallel = _run_cli(at_four, tmp / "family_c4", timeout=timeout)
            serial = sum(r["duration_s"] for r in read_records(tmp / "family_codex"))
            out["family_concurrency"] = {"level": 4, "serial_episode_s": serial, "wall_s": parallel.wall_s,
                                         "speedup": serial / max(1e-9, parallel.wall_s)}  # fmt: skip
    for name in ("command_thin", "family_thin"):
        if name in out:
            out[name]["mean_ratio"] = out[name]["mean_s"] / out["react"]["mean_s"]
    return out
