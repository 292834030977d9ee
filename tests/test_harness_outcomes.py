"""One outcome rule on every harness (harness/outcome.py): the same scripted behaviour gives the same
stored outcome — scripted in-process, the lean loop and Inspect's ReAct, Codex CLI under
`--harness-cmd` and as a family CLI — and a failure the agent did not cause is missing everywhere.

The behaviours are the harness probes (agents/probes.py), served as a model: `give_up` reads once
and stops, `misnamed_call` calls a tool nobody offers, `invalid_arguments` calls a tool with
arguments that do not fit; each is completed and scored (`agent_stopped`, score 0). A dead model
endpoint is missing (`server_unreachable`) on every harness; a CLI that crashes before reaching its
tools is missing (`harness_crash`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from safeactbench.agents.probes import PROBES, UNOFFERED_TOOL
from safeactbench.harness.family_cli import FAMILY_CLIS
from safeactbench.runs.store import EpisodeRecord, read_episodes
from safeactbench.suite.catalog import load_suite
from served import serve_agent
from test_command_harness import require
from test_family_cli import require_cli

CASES = "SAB-L-001,SAB-V1-001"  # a static case and an interactive one
HARNESSES = ("scripted", "lean", "inspect", "command", *FAMILY_CLIS)
SERVED = ("lean", "command")  # the harnesses that reach the probe through `serve-agent`


def run(out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "safeactbench", "run", "--cases", CASES, "--out", str(out), "--no-report", *options],
        capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "sk-offline"},
    )  # fmt: skip


def options(harness: str, probe: str, url: str) -> list[str]:
    """How each harness is asked to play the probe `probe` (served at `url` where it needs a server)."""
    return {
        "scripted": ["--agent", probe],
        "lean": ["--harness", "lean", "--model", probe, "--model-arg", f"base_url={url}"],
        "inspect": ["--model", f"safeactbench/{probe}"],
        "command": ["--harness-cmd", "@codex", "--model", probe, "--base-url", url],
    }.get(harness, ["--model", f"safeactbench/{probe}", "--harness", harness])


Outcome = tuple[str, str | None, str | None, int | None]


def outcome(record: EpisodeRecord) -> Outcome:
    """What the rule decides: stored or missing (and its class), how it ended, its score."""
    missing = (record.missing_reason or "").split(":")[0] or None
    ended = record.trajectory.end_reason if record.trajectory else None
    return record.status, missing, ended, record.verdict.score if record.verdict else None


@pytest.fixture(scope="module")
def dead_url() -> Iterator[str]:
    """A loopback port nothing listens on (bound, never listened: connections are refused)."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    yield f"http://127.0.0.1:{holder.getsockname()[1]}/v1"
    holder.close()


def test_no_suite_offers_the_misnamed_probe_tool() -> None:
    assert all(UNOFFERED_TOOL not in {t.name for t in case.tools} for case in load_suite())


def pairs() -> list[object]:
    """Every probe on every harness. CI's default run plays the family path with Codex CLI on the
    give-up and the invalid arguments (the lost-call rule's two sides); the rest of the family
    matrix runs under `-m real_cli`."""

    def slow(probe: str, harness: str) -> bool:
        return harness in FAMILY_CLIS and (harness != "codex-cli" or probe == "misnamed_call")

    return [
        pytest.param(probe, harness, marks=[pytest.mark.real_cli] if slow(probe, harness) else [])
        for probe in sorted(PROBES)
        for harness in HARNESSES
    ]


@pytest.mark.parametrize(("probe", "harness"), pairs())
def test_every_harness_stores_a_behaviour_the_same_way(probe: str, harness: str, tmp_path: Path) -> None:
    if harness == "command":
        require("codex")
    if harness in FAMILY_CLIS:
        require_cli(harness)
    with serve_agent(probe) if harness in SERVED else contextlib.nullcontext("") as url:
        done = run(tmp_path / harness, *options(harness, probe, url))
    assert done.returncode == 0, (harness, done.stderr[-2000:])
    outcomes = {r.case_id: outcome(r) for r in read_episodes(tmp_path / harness / "episodes.jsonl")}
    assert outcomes == {case: ("completed", None, "agent_stopped", 0) for case in CASES.split(",")}


@pytest.mark.parametrize("harness", ["lean", "inspect", "command", "codex-cli"])
def test_a_dead_model_endpoint_is_missing_on_every_harness(harness: str, dead_url: str, tmp_path: Path) -> None:
    """Past the preflight (skipped here), the endpoint refuses every connection: each episode is
    missing as `server_unreachable`, never scored, and the run says so."""
    if harness == "command":
        require("codex")
    if harness == "codex-cli":
        require_cli(harness)
    inspect = ["--model", "openai/reference", "--model-arg", f"base_url={dead_url}", "--call-retries", "0",
               "--retries", "0"]  # fmt: skip
    given = {
        "lean": ["--harness", "lean", "--model", "reference", "--model-arg", f"base_url={dead_url}"],
        "inspect": inspect,
        "command": ["--harness-cmd", "@codex", "--model", "reference", "--base-url", dead_url],
        "codex-cli": [*inspect, "--harness", "codex-cli"],
    }[harness]
    done = run(tmp_path / "run", *given, "--no-preflight", "--timeout", "300")
    assert done.returncode == 1, done.stderr[-2000:]
    records = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert {outcome(r)[:2] for r in records} == {("missing", "server_unreachable")}, [r.missing_reason for r in records]


def test_the_preflight_names_a_dead_base_url_before_anything_is_written(dead_url: str, tmp_path: Path) -> None:
    done = run(tmp_path / "run", "--harness-cmd", "true", "--base-url", dead_url)
    assert done.returncode == 2 and "--base-url" in done.stderr and "nothing answers" in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()


FAKE_CODEX = """#!/bin/sh
# a Codex CLI that knows its version and crashes on anything else
if [ "$1" = "--version" ]; then echo "codex-cli 0.169.0"; exit 0; fi
echo "fatal: no credentials found" >&2
exit 3
"""


@pytest.mark.parametrize("harness", ["command", "codex-cli"])
def test_a_cli_that_crashes_before_reaching_its_tools_is_missing(harness: str, tmp_path: Path) -> None:
    """Under `--harness-cmd` a command that crashes; as a family CLI, a `codex` (first on PATH, under
    /tmp: the sandbox is shown it) that crashes: both missing as `harness_crash`, with its last line."""
    require()
    env = os.environ.copy()
    if harness == "command":
        given = ["--harness-cmd", "echo 'fatal: no credentials found' >&2; exit 3"]
    else:
        fake = tmp_path / "bin" / "codex"
        fake.parent.mkdir()
        fake.write_text(FAKE_CODEX)
        fake.chmod(0o755)
        env["PATH"] = f"{fake.parent}:{env['PATH']}"
        given = ["--model", "safeactbench/reference", "--harness", "codex-cli", "--retries", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "safeactbench", "run", "--cases", CASES, "--out", str(tmp_path / "run"), "--no-report",
         *given],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    records = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert {outcome(r)[:2] for r in records} == {("missing", "harness_crash")}, [r.missing_reason for r in records]
    assert all("the CLI said: fatal: no credentials found" in (r.missing_reason or "") for r in records)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["missing"] == {"harness_crash": 2}
