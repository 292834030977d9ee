"""The worker processes of `run --harness lean --workers N` die with their parent, however it dies.

Real processes on loopback: `safeactbench serve-agent` answers slowly enough that the run is still
going when the test signals the parent (the parent alone, never its process group). No worker may
stay behind asking the model for episodes nobody will store. Linux only: workers are found in /proc.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from safeactbench.runs.store import read_episodes
from safeactbench.suite.data import load_suite
from served import serve_agent

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="finds worker processes in /proc")

DOMAINS = ("customer", "healthcare")
PLANNED = sum(c.protocol.value == "V1" and c.domain in DOMAINS for c in load_suite())  # ~40 episodes


def served(latency: float) -> contextlib.AbstractContextManager[str]:
    return serve_agent("reference", "--latency", str(latency))


def requests_served(url: str) -> int:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=10) as response:
        return int(json.loads(response.read())["requests"])


def run_command(url: str, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "safeactbench", "run", "--model", "served", "--harness", "lean",
            "--model-arg", f"base_url={url}", "--model-arg", "backoff=0.01", "--protocol", "V1",
            "--domain", ",".join(DOMAINS), "--max-concurrency", "8", "--workers", "2",
            "--no-report", "--out", str(out), *extra]  # fmt: skip


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...); None once gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()


def worker_pids(parent: int) -> list[int]:
    """The multiprocessing workers among `parent`'s children (not its resource tracker)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or (fields := _stat(int(entry.name))) is None or int(fields[1]) != parent:
            continue
        with contextlib.suppress(OSError):
            if b"--multiprocessing-fork" in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
    return pids


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie waits for a reaper, it runs nothing


def still_alive(pids: list[int], within: float) -> list[int]:
    """The processes among `pids` still running after waiting up to `within` seconds for them to end."""
    deadline = time.monotonic() + within
    while (running := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running


@contextlib.contextmanager
def run_under_way(url: str, out: Path) -> Iterator[tuple[subprocess.Popen[bytes], list[int]]]:
    """The run in its own session, once a few episodes are stored; yields it and its worker pids.
    Afterwards its whole process group is killed, so a worker that outlived its parent (the failure
    under test) does not outlive the test."""
    process = subprocess.Popen(
        run_command(url, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        path, deadline = out / "episodes.jsonl", time.monotonic() + 60
        while not path.exists() or len(path.read_text().splitlines()) < 3:
            assert process.poll() is None and time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        workers = worker_pids(process.pid)
        assert len(workers) == 2, workers
        yield process, workers
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the group outlives its leader while members remain
        process.wait()


def test_sigkill_to_the_parent_kills_its_workers_and_their_requests_stop(tmp_path: Path) -> None:
    with served(latency=0.2) as url, run_under_way(url, tmp_path / "run") as (process, workers):
        os.kill(process.pid, signal.SIGKILL)  # no clean-up runs in the parent: the OS has to do it
        process.wait(timeout=10)
        assert still_alive(workers, within=30) == []
        time.sleep(1.0)  # requests already on the wire reach the server (a settle, not a measurement)
        sent = requests_served(url)
        time.sleep(1.0)  # five times the latency: a live worker would have sent more
        assert requests_served(url) == sent


def test_sigterm_to_the_parent_stops_its_workers_and_the_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    path = out / "episodes.jsonl"
    with served(latency=0.1) as url:  # one endpoint throughout: a resumed run keeps its configuration
        with run_under_way(url, out) as (process, workers):
            os.kill(process.pid, signal.SIGTERM)
            code = process.wait(timeout=10)
            assert still_alive(workers, within=30) == []
            assert code == 128 + signal.SIGTERM  # an exit through its clean-up, not death by the signal
        survived = {r.key for r in read_episodes(path)}
        assert 0 < len(survived) < PLANNED
        done = subprocess.run(run_command(url, out, "--resume"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    keys = [r.key for r in read_episodes(path)]
    assert len(keys) == len(set(keys)) == PLANNED and survived <= set(keys)
