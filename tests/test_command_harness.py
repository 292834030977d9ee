"""`run --harness-cmd`: each episode's command in the bubblewrap sandbox, its tools served from outside
it over MCP; the tested templates with real CLIs driven offline by `serve-agent reference`.

Codex CLI is installed by `.ci/run` (a missing one fails in CI, skips elsewhere with the install
command); Qwen Code is tested where installed and skipped, with the install command, elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import safeactbench
from safeactbench.agents import get_agent
from safeactbench.catalog import get_case
from safeactbench.cli import app
from safeactbench.harness.bwrap_sandbox import missing_tools
from safeactbench.harness.cli_templates import EXECUTABLES
from safeactbench.runner import Job, play_scripted
from safeactbench.store import read_episodes
from served import ONE_PER_PROTOCOL, TWO_PER_PROTOCOL, serve_agent

AGENT = Path(__file__).parent / "mcp_agent.py"
PACKAGE = Path(safeactbench.__file__).resolve().parent


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def require(*tools: str, optional: bool = False) -> None:
    problems = [f"`{t}` is missing: apt-get install -y bubblewrap util-linux" for t in missing_tools()]
    for template in tools:
        executable, package = EXECUTABLES[template]
        if shutil.which(executable) is None:
            problems.append(f"`{executable}` is missing: npm install -g {package}")
    if not problems:
        return
    if optional or not os.environ.get("CI") or os.environ.get("SAFEACTBENCH_SKIP_CLI") == "1":
        pytest.skip("; ".join(problems))
    pytest.fail("; ".join(problems), pytrace=False)


def test_an_unknown_placeholder_is_one_error_line(tmp_path: Path) -> None:
    code, output = invoke("run", "--harness-cmd", "agent {mcp_config} {case} ${HOME}", "--out", str(tmp_path / "r"))
    assert code == 2 and "unknown placeholder(s) {case}" in output, output
    assert not (tmp_path / "r").exists()
    code, output = invoke("run", "--harness-cmd", "@nope", "--out", str(tmp_path / "r"))
    assert code == 2 and "no such template" in output


def test_a_sandboxed_command_sees_only_its_work_directory(tmp_path: Path) -> None:
    require()
    run_dir = tmp_path / "run"
    probe = (
        f"ls -A /work; head -c 200 {PACKAGE / 'data' / 'cases.jsonl'}; ls {run_dir} {Path.cwd()};"
        " find / -xdev -name cases.jsonl -not -path '/proc/*' 2>/dev/null; env;"
        # the host's processes (the episode's MCP server runs with --case <id>) are not visible;
        # [e] and [B] keep the probe from finding its own command line
        " cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o -e '--cas[e] [^ ]*' -e 'SA[B]-[0-9A-Z-]*'"
    )
    env = {**os.environ, "OPENAI_API_KEY": "sk-visible-to-the-cli", "SAFEACTBENCH_PRIVATE": "never-seen"}
    done = subprocess.run(
        [sys.executable, "-m", "safeactbench", "run", "--harness-cmd", probe, "--cases", "SAB-V1-001",
         "--out", str(run_dir), "--no-report"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # nothing submitted: the episode is missing
    [work] = [p for p in (run_dir / "work").iterdir() if p.is_dir()]
    assert "SAB" not in work.name  # the work directory is named by a random token
    seen = (work / "harness.log").read_text()
    assert seen.splitlines()[:2] == ["mcp.json", "prompt.txt"] and "head:" in seen.splitlines()[2], seen  # all of /work
    assert "SAB-" not in seen and "expected_actions" not in seen, seen
    assert seen.count("No such file") >= 3, seen
    assert "OPENAI_API_KEY=sk-visible-to-the-cli" in seen and "never-seen" not in seen
    [record] = read_episodes(run_dir / "episodes.jsonl")
    assert record.status == "missing" and "never called a tool" in (record.missing_reason or "")
    assert json.loads((run_dir / "run.json").read_text())["config"]["sandbox"] is True


def test_exiting_without_submitting_is_missing_and_resume_replays_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # ${MODE:-quit} is the shell's, not a placeholder: the stand-in makes one call and exits cleanly
    command = f"{sys.executable} {AGENT} {{mcp_config}} {{case_id}} ${{MODE:-quit}}"
    args = [
        "run",
        "--harness-cmd",
        command,
        "--cases",
        "SAB-V2-001",
        "--out",
        str(out),
        "--no-report",
        "--no-sandbox",  # the stand-in runs on this virtualenv, which the sandbox hides
    ]
    code, output = invoke(*args)
    assert code == 1, output
    [record] = read_episodes(out / "episodes.jsonl")
    assert record.status == "missing" and (record.missing_reason or "").startswith("harness_incomplete: exit 0")
    os.environ["MODE"] = "reference"
    try:
        code, output = invoke(*args, "--resume")
    finally:
        del os.environ["MODE"]
    assert code == 0, output
    latest = {r.key: r for r in read_episodes(out / "episodes.jsonl")}
    assert [r.verdict.score for r in latest.values() if r.verdict] == [1]


@pytest.mark.parametrize("template", ["codex", "qwen-code"])
def test_cli_templates_play_every_protocol_as_the_reference_agent(template: str, tmp_path: Path) -> None:
    require(template, optional=template != "codex")
    out = tmp_path / template
    # two cases per protocol for Codex; one for Qwen Code, which takes seconds longer per episode
    cases = TWO_PER_PROTOCOL if template == "codex" else ONE_PER_PROTOCOL
    with serve_agent() as url:
        done = subprocess.run(
            [sys.executable, "-m", "safeactbench", "run", "--harness-cmd", f"@{template}", "--model", "reference",
             "--base-url", url, "--cases", ",".join(cases), "--max-concurrency", "4", "--out", str(out),
             "--no-report"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    reference = get_agent("reference")
    records = {r.case_id: r for r in read_episodes(out / "episodes.jsonl")}
    assert sorted(records) == sorted(cases)
    for case_id, record in records.items():
        assert record.status == "completed", (case_id, record.missing_reason)
        expected = play_scripted(Job(get_case(case_id), "original", 0), reference).trajectory
        assert record.trajectory == expected and record.verdict and record.verdict.score == 1, case_id
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["agent"] == template and meta["config"]["sandbox"] is True
    assert meta["cli"]["name"] == EXECUTABLES[template][0] and meta["cli"]["version"]


def test_a_silent_hung_mcp_server_fails_its_start_instead_of_blocking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait for the server's URL is bounded even when the server prints nothing and never exits."""
    import threading

    from safeactbench.harness import command

    hung = tmp_path / "python"
    hung.write_text("#!/bin/sh\nexec sleep 300\n")
    hung.chmod(0o755)
    monkeypatch.setattr(command.sys, "executable", str(hung))
    monkeypatch.setattr(command, "SERVER_START_S", 0.5)
    job = Job(case=get_case("SAB-V1-001"), condition="original", repetition=0)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            command._start_server(job, tmp_path)
        except RuntimeError as exc:
            errors.append(exc)

    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive(), "_start_server blocked on a silent server"
    assert errors and "did not start within 0.5 s" in str(errors[0])
