"""The MCP server over real stdio with the official SDK, and the external-command harness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.core.evaluator import evaluate
from safeactbench.core.trajectory import Trajectory
from safeactbench.runs.store import read_episodes
from safeactbench.suite.data import load_suite

sys.path.insert(0, str(Path(__file__).parent))
import mcp_agent

AGENT = Path(__file__).parent / "mcp_agent.py"
V2_CASES = [c for c in load_suite() if c.protocol.value == "V2"]


def write_config(tmp_path: Path, case_id: str) -> Path:
    config = {
        "mcpServers": {
            "safeactbench": {
                "command": sys.executable,
                "args": ["-m", "safeactbench", "mcp", "--case", case_id, "--out", str(tmp_path / "episode")],
            }
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    return path


def recorded(tmp_path: Path) -> Trajectory:
    return Trajectory.model_validate_json((tmp_path / "episode" / "trajectory.json").read_text())


def test_sdk_client_plays_a_v2_case_to_success(tmp_path: Path) -> None:
    case = V2_CASES[0]
    observations = anyio.run(mcp_agent.play, str(write_config(tmp_path, case.id)), case.id, "reference")
    assert observations[-1]["status"] == "ok"  # submit accepted
    trajectory = recorded(tmp_path)
    assert trajectory.end_reason == "submitted"
    assert len(trajectory.steps) == len(case.reference)
    verdict = evaluate(case, trajectory)
    assert verdict.score == 1, verdict.findings


def test_sdk_client_with_a_fabricated_result_id(tmp_path: Path) -> None:
    case = V2_CASES[0]
    anyio.run(mcp_agent.play, str(write_config(tmp_path, case.id)), case.id, "fabricate")
    verdict = evaluate(case, recorded(tmp_path))
    assert verdict.score == 0
    assert verdict.outcome.value == "INVALID_RESULT_REFERENCE"
    assert "RF-FAKE01" in verdict.findings[0].detail


def test_server_answers_bad_calls_with_structured_errors(tmp_path: Path) -> None:
    case = V2_CASES[1]

    async def misbehave() -> list[dict]:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        server = json.loads(write_config(tmp_path, case.id).read_text())["mcpServers"]["safeactbench"]
        params = StdioServerParameters(command=server["command"], args=server["args"])
        out = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for name, args in (("no_such_tool", {}), ("get_charge", {"charge_id": 7}), ("get_charge", {})):
                result = await session.call_tool(name, args)
                assert result.is_error
                out.append(json.loads(result.content[0].text))
        return out

    codes = [o["error"]["code"] for o in anyio.run(misbehave)]
    assert codes == ["UNKNOWN_TOOL", "INVALID_ARGUMENTS", "INVALID_ARGUMENTS"]
    trajectory = recorded(tmp_path)
    assert [s.kind for s in trajectory.steps] == ["invalid", "information", "information"]
    assert evaluate(case, trajectory).outcome.value == "INCOMPLETE_WORKFLOW"


def test_harness_cmd_runs_an_external_agent_per_case(tmp_path: Path) -> None:
    cases = [c.id for c in V2_CASES[:2]] + [next(c.id for c in load_suite() if c.protocol.value == "V0")]
    out = tmp_path / "run"
    command = f"{sys.executable} {AGENT} {{mcp_config}} {{case_id}} reference"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--harness-cmd",
            command,
            "--label",
            "fake-cli",
            "--cases",
            ",".join(cases),
            "--out",
            str(out),
            "--max-concurrency",
            "2",
            "--no-sandbox",  # the stand-in agent runs on this virtualenv, which the sandbox hides
        ],
    )
    assert result.exit_code == 0, result.output
    records = read_episodes(out / "episodes.jsonl")
    assert sorted(r.case_id for r in records) == sorted(cases)
    assert all(r.status == "completed" and r.verdict.score == 1 for r in records)
    assert all(r.harness == "command" and r.agent == "fake-cli" for r in records)
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["harness"] == "command" and meta["completed"] == len(cases)


def test_harness_crash_and_timeout_are_missing_not_failures(tmp_path: Path) -> None:
    case_id = V2_CASES[0].id
    for mode, reason in (("crash", "harness_crash"), ("hang", "timeout")):
        out = tmp_path / mode
        command = f"{sys.executable} {AGENT} {{mcp_config}} {{case_id}} {mode}"
        result = CliRunner().invoke(
            app,
            ["run", "--harness-cmd", command, "--cases", case_id, "--out", str(out), "--timeout", "3", "--no-sandbox"],
        )
        assert result.exit_code == 1 and "no episode completed" in result.output, result.output
        [record] = read_episodes(out / "episodes.jsonl")
        assert record.status == "missing" and record.verdict is None
        assert record.missing_reason.startswith(reason)
        meta = json.loads((out / "run.json").read_text())
        assert meta["completed"] == 0 and sum(meta["missing"].values()) == 1
