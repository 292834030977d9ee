"""The family CLI harnesses with the real CLIs (Codex CLI, Claude Code, Gemini CLI, OpenCode, Qwen
Code, from npm) in the bwrap sandbox, their model the offline scripted Inspect model through the
model route.

Needs each CLI and bubblewrap (`.ci/run` installs them): in CI a missing one is a failure,
elsewhere a skip that names the install command (SAFEACTBENCH_SKIP_CLI=1 skips anywhere).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageTool, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi

import safeactbench
from safeactbench.agents import get_agent
from safeactbench.harness.bwrap_sandbox import missing_tools
from safeactbench.harness.cli_templates import EXECUTABLES
from safeactbench.harness.family_cli import FAMILY_CLIS, executable
from safeactbench.harness.inspect_task import safeactbench as safeactbench_task
from safeactbench.harness.tool_names import episode_tool
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import read_episodes
from safeactbench.suite.catalog import get_case
from served import ONE_PER_PROTOCOL, serve_agent

SKIP_VARIABLE = "SAFEACTBENCH_SKIP_CLI"


def require_cli(harness: str = "codex-cli") -> None:
    """The family CLI `harness` and bubblewrap: a failure in CI (`.ci/run` installs them), else a skip
    that names the install command."""
    problems = [f"`{tool}` is missing: apt-get install -y bubblewrap util-linux" for tool in missing_tools()]
    command = executable(harness)
    if shutil.which(command) is None:
        problems.append(f"`{command}` is missing: npm install -g {EXECUTABLES[FAMILY_CLIS[harness]][1]}")
    if not problems:
        return
    if os.environ.get(SKIP_VARIABLE) == "1" or not os.environ.get("CI"):
        pytest.skip("; ".join(problems))
    pytest.fail("; ".join(problems) + f"; or set {SKIP_VARIABLE}=1", pytrace=False)


def require_codex_and_sandbox() -> None:
    require_cli("codex-cli")


def family_runs() -> list[object]:
    """Every family CLI on one chain case in CI's default run; one case per protocol under
    `-m real_cli`."""
    return [
        run
        for harness in FAMILY_CLIS
        for run in (
            pytest.param(harness, ["SAB-V2-033"], id=f"{harness}-one"),
            pytest.param(harness, ONE_PER_PROTOCOL, id=f"{harness}-every-protocol", marks=pytest.mark.real_cli),
        )
    ]


@pytest.mark.parametrize(("harness", "cases"), family_runs())
def test_family_clis_play_cases_as_the_reference_agent(harness: str, cases: list[str], tmp_path: Path) -> None:
    require_cli(harness)
    out = tmp_path / harness
    done = subprocess.run(
        [sys.executable, "-m", "safeactbench", "run", "--model", "safeactbench/reference", "--harness", harness,
         "--cases", ",".join(cases), "--max-concurrency", "5", "--out", str(out), "--no-report"],
        capture_output=True,
        text=True,
        timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    records = {r.case_id: r for r in read_episodes(out / "episodes.jsonl")}
    assert sorted(records) == sorted(cases)
    reference = get_agent("reference")
    for case_id, record in records.items():
        assert record.status == "completed", (case_id, record.missing_reason)
        assert record.verdict is not None and record.verdict.outcome.value == "CASE_SUCCESS", case_id
        expected = play_scripted(Job(get_case(case_id), "original", 0), reference).trajectory
        assert record.trajectory == expected, case_id
        assert record.harness == harness
        # the model's replies, as the CLI's conversation holds them: every episode call among them
        ours = {step.tool for step in expected.steps}
        made = [episode_tool(c["name"], ours) for turn in record.transcript or [] for c in turn.tool_calls]
        assert made == [step.tool for step in expected.steps], case_id
    meta = json.loads((out / "run.json").read_text())
    assert meta["cli"]["name"] == executable(harness) and meta["cli"]["version"]


# ---------------------------------------------------------------------------- nothing leaks

PACKAGE = Path(safeactbench.__file__).resolve().parent
SECRET_FILES = [PACKAGE / "data" / "cases.jsonl", PACKAGE / "data" / "manifest.json"]


def probe(run_dir: Path) -> str:
    """What a curious agent runs in its shell: the suite data, the run directory, the package."""
    # each read's error goes to stdout, in order: a CLI may show stdout and stderr apart
    reads = " ".join(f"echo '== {p}'; head -c 400 '{p}' 2>&1;" for p in [*SECRET_FILES, run_dir / "episodes.jsonl"])
    return (
        f"{reads} echo '== ls'; ls '{run_dir}' '{PACKAGE}' '{Path.cwd()}' 2>&1 | head -20;"
        " echo '== find'; find / -xdev \\( -name cases.jsonl -o -name episodes.jsonl -o -name run.json \\)"
        " -not -path '/proc/*' 2>/dev/null | head -5; echo '== env'; env | grep -i -E 'sab-|case|api_key|token' | head;"
        " echo '== procs'; ls /proc | grep -c '^[0-9]'"
    )


PROBES: dict[str, str] = {}  # sample id -> the command the snooping model runs


@modelapi(name="snoop")
class SnoopingModel(ModelAPI):
    """A model that runs `PROBES[sample]` in the CLI's own shell tool, then stops."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(self, input: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> ModelOutput:
        if any(isinstance(m, ChatMessageTool) for m in input):
            output = ModelOutput.from_content(model="snoop", content="I looked around.")
        else:
            shell = next(t.name for t in tools if t.name in ("exec_command", "shell"))
            [command] = PROBES.values()
            output = ModelOutput.for_tool_call(model="snoop", tool_name=shell, tool_arguments={"cmd": command})
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output


def shell_output(run_dir: Path, sandbox: bool) -> str:
    PROBES.clear()
    PROBES["only"] = probe(run_dir)
    task = safeactbench_task(cases="SAB-V1-001", harness="codex-cli", sandbox=sandbox, run_dir=str(run_dir))
    [log] = inspect_eval(task, model="snoop/curious", display="none", log_dir=str(run_dir / "logs"))
    assert log.samples, log.error
    [sample] = log.samples
    outputs = [m.text for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert outputs, sample.error
    return "\n".join(outputs)


def test_the_cli_shell_cannot_read_the_answers_inside_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_codex_and_sandbox()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own-key")  # the CLI's model is ours: no key goes in
    run_dir = tmp_path / "run"
    seen = shell_output(run_dir, sandbox=True)
    assert "== find" in seen, seen  # the probe ran
    for secret in ("SAB-", '"expected_actions"', "world_seed", "config_id", "sk-the-users-own-key"):
        assert secret not in seen, (secret, seen)
    assert seen.split("== find", 1)[1].split("== env", 1)[0].strip() == "", seen  # no suite or run file anywhere
    assert int(seen.split("== procs", 1)[1].split()[0]) < 30, seen  # the sample's processes, not the host's
    for path in (*SECRET_FILES, run_dir / "episodes.jsonl"):
        after = seen.split(f"== {path}", 1)[1].split("==", 1)[0]
        assert "No such file" in after, (path, seen)
    # the control: the same probe without the sandbox reads the suite data and the run
    control = shell_output(tmp_path / "control", sandbox=False)
    assert '"expected_actions"' in control or "SAB-" in control, control


# ---------------------------------------------------------------------------- harness faults


def test_harness_faults_are_missing_and_resume_completes_them(tmp_path: Path) -> None:
    require_codex_and_sandbox()
    out = tmp_path / "run"
    # SAB-L-001 takes one call (decide): each fault and the resume are quick. The faults are execution
    # arguments, so one run goes through both: a resume may change them.
    args = [sys.executable, "-m", "safeactbench", "run", "--model", "safeactbench/reference", "--harness", "codex-cli",
            "--cases", "SAB-L-001", "--retries", "0", "--out", str(out), "--no-report"]  # fmt: skip
    faults = [
        ([], "misroute=1", "harness_fault: 1 tool call(s) the model made never reached the episode"),  # lost
        (["--resume"], "fail=always", "simulated API failure"),  # the model is down: its own error, at once
    ]
    for resume, fault, reason in faults:
        done = subprocess.run([*args, *resume, "--model-arg", fault], capture_output=True, text=True, timeout=600)
        assert done.returncode == 1 and "no episode completed" in done.stderr, (fault, done.stderr[-3000:])
        last = read_episodes(out / "episodes.jsonl")[-1]
        assert last.status == "missing" and reason in (last.missing_reason or ""), (fault, last.missing_reason)
    done = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    latest = {r.key: r for r in read_episodes(out / "episodes.jsonl")}  # the completed retry supersedes
    [completed] = latest.values()
    assert completed.status == "completed" and completed.verdict is not None and completed.verdict.score == 1


# ---------------------------------------------------------------------------- concurrent episodes

PORT_PROBE = Path(__file__).parent / "port_probe.py"


def knock(probe_file: Path, foreign: list[str]) -> str:
    """The shell command a snooping model runs: the port probe (tests/port_probe.py) with its own MCP
    URL (from the work directory's mcp.json), a fresh mark, and the foreign servers to try."""
    own = "import json; print(json.load(open('/work/mcp.json'))['mcpServers']['backoffice']['url'])"
    mark = "$(cat /proc/sys/kernel/random/uuid)"
    return f'own=$(/usr/bin/python3 -c "{own}"); /usr/bin/python3 {probe_file} "$own" {mark} {" ".join(foreign)}'


def test_concurrent_family_episodes_reach_only_their_own_servers(tmp_path: Path) -> None:
    """Two family-CLI episodes at once, each a model having Codex's shell knock on every listener it
    can see and on the host's (another episode's MCP server, a serve-agent): each reaches its own
    two listeners (tool server, model endpoint) only, calls its own tool server only, and each
    trajectory holds its own agent's call."""
    require_codex_and_sandbox()
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the probe runs on the system Python (/usr/bin/python3) inside the sandbox")
    shown = tmp_path / "probe"
    shown.mkdir()
    shutil.copy(PORT_PROBE, shown / "port_probe.py")
    foreign = subprocess.Popen(
        [sys.executable, "-m", "safeactbench", "mcp", "--case", "SAB-V1-025", "--out", str(tmp_path / "foreign"),
         "--http", "0"], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    run_dir = tmp_path / "run"
    try:
        assert foreign.stdout is not None
        foreign_url = foreign.stdout.readline().rsplit(" ", 1)[1].strip()
        with serve_agent() as agent_url:
            hosts = [u.split("/")[2] for u in (foreign_url, agent_url)]
            PROBES.clear()
            PROBES["only"] = knock(shown / "port_probe.py", hosts)
            task = safeactbench_task(cases="SAB-V1-001,SAB-V2-001", harness="codex-cli", run_dir=str(run_dir),
                                     sandbox_bind=str(shown))  # fmt: skip
            [log] = inspect_eval(task, model="snoop/curious", display="none", log_dir=str(run_dir / "logs"),
                                 max_samples=2)  # fmt: skip
    finally:
        foreign.terminate()
        foreign.wait(timeout=30)
    assert log.samples and len(log.samples) == 2, log.error
    records = {r.case_id: r for r in read_episodes(run_dir / "episodes.jsonl")}
    marks = {}
    for sample in log.samples:
        [output] = [m.text for m in sample.messages if isinstance(m, ChatMessageTool)]
        seen = json.loads(next((line for line in output.splitlines()[::-1] if line.startswith("{")), output))
        assert len(seen["reachable"]) == 2 and not set(seen["reachable"]) & set(hosts), seen  # its own two
        assert len(seen["called"]) == 1, seen  # its own tool server: the model endpoint speaks no MCP
        record = records[str(sample.metadata["case_id"])]
        assert record.trajectory is not None
        [step] = record.trajectory.steps
        marks[record.case_id] = list(step.arguments.values()) if isinstance(step.arguments, dict) else []
    assert len({m[0] for m in marks.values()}) == 2, marks  # each episode holds its own agent's mark
    assert json.loads((tmp_path / "foreign" / "trajectory.json").read_text())["steps"] == []


def test_a_family_cli_whose_api_sdk_is_missing_fails_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from safeactbench.cli import app
    from safeactbench.harness.family_cli import API_SDKS

    monkeypatch.setitem(API_SDKS, "claude-code", "no_such_sdk_module")
    out = tmp_path / "run"
    args = ["run", "--model", "safeactbench/reference", "--harness", "claude-code", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "`no_such_sdk_module` SDK" in result.output and "safeactbench[providers]" in result.output
    assert not out.exists()
