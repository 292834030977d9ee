"""`run --harness-cmd`: each episode's command in the bubblewrap sandbox, its tools served from outside
it over MCP; the tested templates with real CLIs driven offline by `serve-agent reference`.

`.ci/run` installs every templated CLI (Codex CLI, Qwen Code, Claude Code, Gemini CLI, OpenCode)
under a non-system npm prefix: a missing one fails in CI and skips elsewhere with the install
command.
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
from safeactbench.cli import app
from safeactbench.harness.bwrap_sandbox import missing_tools
from safeactbench.harness.cli_templates import EXECUTABLES, TEMPLATES
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import read_episodes
from safeactbench.suite.catalog import get_case
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


@pytest.mark.parametrize("sandbox", ["--sandbox", "--no-sandbox"])
def test_a_template_is_refused_before_the_run_without_its_cli_or_a_model(
    sandbox: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = invoke("run", "--harness-cmd", "@qwen-code", sandbox, "--out", str(tmp_path / "r"))
    assert code == 2 and "pass --base-url" in output, output
    tools = tmp_path / "bin"  # the sandbox's own tools, and no CLI
    tools.mkdir()
    for tool in ("bwrap", "nsenter"):
        if shutil.which(tool):
            (tools / tool).symlink_to(str(shutil.which(tool)))
    monkeypatch.setenv("PATH", str(tools))
    args = ["--base-url", "http://127.0.0.1:9/v1", "--no-preflight", "--out", str(tmp_path / "r")]
    code, output = invoke("run", "--harness-cmd", "@qwen-code", sandbox, *args)
    assert code == 2 and "`qwen` is not installed" in output and "npm install -g @qwen-code/qwen-code" in output
    assert not (tmp_path / "r").exists()


def test_a_sandboxed_command_sees_only_its_work_directory(tmp_path: Path) -> None:
    require()
    run_dir = tmp_path / "run"
    probe = (
        f"ls -A /work; head -c 200 {PACKAGE / 'data' / 'cases.jsonl'}; ls {run_dir} {Path.cwd()};"
        " find / -xdev -name cases.jsonl -not -path '/proc/*' 2>/dev/null; env;"
        # the host's processes (the run's own command line names the case) are not visible;
        # [e] and [B] keep the probe from finding its own command line
        " cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o -e '--cas[e]s [^ ]*' -e 'SA[B]-[0-9A-Z-]*'"
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
    assert record.status == "missing" and "never reached its tools" in (record.missing_reason or "")
    assert json.loads((run_dir / "run.json").read_text())["config"]["sandbox"] is True


def test_exiting_without_submitting_is_scored_and_a_crash_is_missing_until_resumed(tmp_path: Path) -> None:
    """The outcome rule (harness/outcome.py): a CLI that stops by itself is the agent's outcome;
    one that crashes before reaching its tools is the harness's, stored missing for --resume."""
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
        "--no-sandbox",
    ]  # fmt: skip  (the stand-in runs on this virtualenv, which the sandbox hides)
    code, output = invoke(*args)
    assert code == 0, output
    [record] = read_episodes(out / "episodes.jsonl")
    assert record.status == "completed" and record.trajectory.end_reason == "agent_stopped"
    assert len(record.trajectory.steps) == 1 and record.verdict and record.verdict.score == 0

    crashed = tmp_path / "crashed"
    args[args.index(str(out))] = str(crashed)
    os.environ["MODE"] = "crash"
    try:
        code, output = invoke(*args)
    finally:
        del os.environ["MODE"]
    assert code == 1, output
    [record] = read_episodes(crashed / "episodes.jsonl")
    assert record.status == "missing" and (record.missing_reason or "").startswith("harness_crash: exit 3")
    os.environ["MODE"] = "reference"
    try:
        code, output = invoke(*args, "--resume")
    finally:
        del os.environ["MODE"]
    assert code == 0, output
    latest = {r.key: r for r in read_episodes(crashed / "episodes.jsonl")}
    assert [r.verdict.score for r in latest.values() if r.verdict] == [1]


def test_concurrent_episodes_reach_only_their_own_tool_server(tmp_path: Path) -> None:
    """Two episodes at once, each an agent knocking on every listener it can see and on the host's
    (another episode's MCP server, a serve-agent): each reaches its own tool server only, and each
    episode's trajectory holds its own agent's calls only."""
    require()
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the probe runs on the system Python (/usr/bin/python3) inside the sandbox")
    probe = tmp_path / "probe" / "port_probe.py"  # under /tmp: a bind there is seen in the sandbox
    probe.parent.mkdir()
    shutil.copy(Path(__file__).parent / "port_probe.py", probe)
    foreign = subprocess.Popen(
        [sys.executable, "-m", "safeactbench", "mcp", "--case", "SAB-V1-025", "--out", str(tmp_path / "foreign"),
         "--http", "0"], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert foreign.stdout is not None
        foreign_url = foreign.stdout.readline().rsplit(" ", 1)[1].strip()
        with serve_agent() as agent_url:
            hosts = [u.split("/")[2] for u in (foreign_url, agent_url)]
            command = f"/usr/bin/python3 {probe} {{mcp_url}} {{episode}} {' '.join(hosts)}"
            out, cases = tmp_path / "run", "SAB-V1-001,SAB-V2-001"
            done = subprocess.run(
                [sys.executable, "-m", "safeactbench", "run", "--harness-cmd", command, "--cases", cases,
                 "--max-concurrency", "2", "--sandbox-bind", str(probe.parent), "--out", str(out), "--no-report"],
                capture_output=True, text=True, timeout=300,
            )  # fmt: skip
    finally:
        foreign.terminate()
        foreign.wait(timeout=30)
    assert done.returncode == 0, done.stderr[-3000:]
    records = read_episodes(out / "episodes.jsonl")
    assert len(records) == 2
    assert {r.case_id for r in records} == {"SAB-V1-001", "SAB-V2-001"}
    for record in records:
        [step] = record.trajectory.steps  # one call: its own agent's, carrying its episode token
        [mark] = step.arguments.values() if isinstance(step.arguments, dict) else [None]
        work = out / "work" / str(mark)
        seen = json.loads((work / "harness.log").read_text().splitlines()[-1])
        own = json.loads((work / "work" / "mcp.json").read_text())["mcpServers"]["backoffice"]["url"]
        assert seen["reachable"] == [own.split("/")[2]], seen  # its own tool server, nothing else
        assert seen["called"] == [own], seen
    foreign_steps = json.loads((tmp_path / "foreign" / "trajectory.json").read_text())["steps"]
    assert foreign_steps == []


def template_runs() -> list[object]:
    """Every template on one chain case in CI's default run; under `-m real_cli` one case per
    protocol (two for Codex)."""
    runs: list[object] = []
    for template in TEMPLATES:
        runs.append(pytest.param(template, ["SAB-V2-033"], id=f"{template}-one"))
        matrix = TWO_PER_PROTOCOL if template == "codex" else ONE_PER_PROTOCOL
        runs.append(pytest.param(template, matrix, id=f"{template}-every-protocol", marks=pytest.mark.real_cli))
    return runs


@pytest.mark.parametrize(("template", "cases"), template_runs())
def test_cli_templates_play_as_the_reference_agent(template: str, cases: list[str], tmp_path: Path) -> None:
    require(template)
    out = tmp_path / template
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
