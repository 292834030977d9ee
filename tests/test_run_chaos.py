"""A property of the run store under abuse: whatever sequence of SIGKILLs, resumes and concurrent
attempts hits one run directory, the run ends with every planned episode stored exactly once and
every verdict equal to a clean run's.

Real processes on loopback: `safeactbench serve-agent reference` (with latency, so kills land
mid-run) and `safeactbench run --harness lean` against it, one or two worker processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safeactbench.agents import get_agent
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import RunStore, read_episodes
from safeactbench.suite.catalog import get_case
from safeactbench.suite.data import load_suite
from served import serve_agent

DOMAINS = ("customer", "healthcare")
CASES = [c for c in load_suite() if c.protocol.value == "V1" and c.domain in DOMAINS]  # ~40 episodes
IN_USE = "in use by another safeactbench process"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with serve_agent("reference", "--latency", "0.03") as url:
        yield url


@pytest.fixture(scope="module")
def clean_verdicts() -> dict[str, object]:
    """What a clean run scores: the reference agent played in-process (the lean harness records
    the same trajectories as the in-process loop: tests/test_lean.py)."""
    reference = get_agent("reference")
    return {c.id: play_scripted(Job(get_case(c.id), "original", 0), reference).verdict for c in CASES}


def start(url: str, out: Path, workers: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "safeactbench", "run", "--model", "served", "--harness", "lean",
         "--model-arg", f"base_url={url}", "--protocol", "V1", "--domain", ",".join(DOMAINS),
         "--max-concurrency", "4", "--workers", str(workers), "--no-report", "--resume", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # fmt: skip


def kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


EVENT = st.tuples(st.sampled_from(["kill", "race"]), st.floats(0.3, 2.5), st.sampled_from([1, 2]))


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(EVENT, min_size=1, max_size=3))
def test_kills_resumes_and_races_end_with_every_episode_once(
    endpoint: str, clean_verdicts: dict[str, object], tmp_path_factory: pytest.TempPathFactory, events: list
) -> None:
    out = tmp_path_factory.mktemp("chaos") / "run"
    for kind, after, workers in events:
        first = start(endpoint, out, workers)
        if kind == "race":  # a second writer while the first may still be running
            time.sleep(after / 2)
            second = start(endpoint, out, 1)
            _, stderr = second.communicate(timeout=300)
            assert second.returncode == 0 or (second.returncode == 2 and IN_USE in stderr), stderr
        time.sleep(after)
        kill(first)  # whether it finished or not
    final = start(endpoint, out, 1)
    _, stderr = final.communicate(timeout=300)
    assert final.returncode == 0, stderr
    records = read_episodes(out / "episodes.jsonl")
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == len(CASES), "every episode exactly once"
    assert RunStore(out).completed_keys() == {(c.id, "original", 0) for c in CASES}
    for record in records:
        assert record.status == "completed" and record.verdict == clean_verdicts[record.case_id], record.case_id


@pytest.mark.parametrize("path", ["inspect", "lean"])
def test_ctrl_c_stores_what_finished_exits_130_and_resume_completes(endpoint: str, path: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    model = (
        ["--model", "safeactbench/reference", "--model-arg", "latency=0.2"]
        if path == "inspect"
        else ["--model", "served", "--harness", "lean", "--model-arg", f"base_url={endpoint}"]
    )
    few = CASES[:6]
    command = [sys.executable, "-m", "safeactbench", "run", *model, "--cases", ",".join(c.id for c in few),
               "--max-concurrency", "2", "--no-report", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    episodes = out / "episodes.jsonl"
    for _ in range(600):  # until the first episode is stored (bounded; no assertion on the time it takes)
        if episodes.exists() and episodes.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert "interrupted:" in stderr and "--resume" in stderr and "eval-retry" not in stderr.split("interrupted:")[1]
    stored = {r.key for r in read_episodes(episodes)}
    assert 1 <= len(stored) <= len(few)
    done = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert RunStore(out).completed_keys() == {(c.id, "original", 0) for c in few}
