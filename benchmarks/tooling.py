"""What every measurement uses: timed repeats, commands measured in a fresh launcher (time and
peak memory), scratch directories, the suite's cases and reference trajectories, a served
scripted agent."""

from __future__ import annotations

import contextlib
import json
import os
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


def run_cli(args: Sequence[str], run_dir: Path, *, env: dict[str, str] | None = None, timeout: float) -> Measured:
    return run_measured(safeactbench_cmd("run", *args, "--out", str(run_dir)), env=env, timeout=timeout).check()


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
