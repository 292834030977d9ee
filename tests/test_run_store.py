"""Run-store guarantees with real processes: SIGKILL mid-run then resume; no secret reaches disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from safeactbench.runs.store import read_episodes
from safeactbench.suite.data import load_suite

SECRET = "sk-test-DO-NOT-LEAK-4f9a8b7c6d5e"


def safeactbench(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "safeactbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_sigkill_midway_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "run",
        "--model",
        "safeactbench/reference",
        "--model-arg",
        "latency=0.05",
        "--protocol",
        "V1,V2",
        "--domain",
        "customer",  # 45 episodes: enough to kill the run midway, quick to resume
        "--max-concurrency",
        "2",
        "--out",
        str(out),
    ]
    planned = sum(c.protocol.value in ("V1", "V2") and c.domain == "customer" for c in load_suite())
    process = safeactbench(*args)
    deadline = time.monotonic() + 120
    while lines(out / "episodes.jsonl") < 6:
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    survived = {r.key for r in read_episodes(out / "episodes.jsonl")} if lines(out / "episodes.jsonl") else set()
    assert 0 < len(survived) < planned, "kill the run midway"

    resumed = safeactbench(*args, "--resume")
    output, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, output
    records = read_episodes(out / "episodes.jsonl")
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == planned
    assert survived <= set(keys)
    assert all(r.status == "completed" and r.verdict and r.verdict.score == 1 for r in records)
    meta = json.loads((out / "run.json").read_text())
    assert meta["resumed"] is True and meta["completed"] == planned


def test_api_keys_never_reach_the_run_directory(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": SECRET, "ANTHROPIC_API_KEY": SECRET, "SAFEACTBENCH_TOKEN": SECRET}
    runs = {
        "inspect": ["run", "--model", "safeactbench/reference", "--protocol", "V1", "--limit", "3"],
        "scripted": ["run", "--agent", "eager", "--protocol", "V0", "--limit", "3"],
        "command": ["run", "--harness-cmd", "env > seen-env.txt; exit 3", "--protocol", "V1", "--limit", "1"],
    }
    for name, args in runs.items():
        process = safeactbench(*args, "--out", str(tmp_path / name), env=env)
        output, _ = process.communicate(timeout=300)
        assert process.returncode == (1 if name == "command" else 0), output  # the command episode is missing
        assert SECRET not in output
    leaked = []
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name != "seen-env.txt" and SECRET.encode() in path.read_bytes():
            leaked.append(str(path))
    assert leaked == []
    # the external agent did receive the environment it needs (only it, in its own process)
    [seen] = list((tmp_path / "command").rglob("seen-env.txt"))
    assert SECRET in seen.read_text()
    seen.unlink()


def test_appender_writes_whole_lines_from_many_threads_and_flushes_each_at_once(tmp_path: Path) -> None:
    import threading

    from safeactbench.agents import get_agent
    from safeactbench.runs.runconfig import RunConfig
    from safeactbench.runs.runner import Job, play_scripted
    from safeactbench.runs.store import RunStore

    store = RunStore(tmp_path / "run")
    store.open(RunConfig(agent="reference", harness="scripted"), {}, planned=40, resume=False)
    records = [play_scripted(Job(c, "original", 0), get_agent("reference")) for c in list(load_suite())[:40]]
    with store.appender() as appender:
        appender.write(records[0])
        # flushed to the OS at once: another reader (or a resume after a kill) sees it before close
        [first] = read_episodes(store.episodes_path)
        assert first.model_copy(update={"config_id": None, "suite_checksum": None}) == records[0]
        assert first.config_id == store.config().fingerprint
        threads = [threading.Thread(target=lambda r=r: appender.write(r)) for r in records[1:]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    stored = read_episodes(store.episodes_path)
    assert sorted(r.key for r in stored) == sorted(r.key for r in records)
    store.release()
