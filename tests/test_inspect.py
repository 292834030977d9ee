"""The real Inspect AI pipeline, offline: scripted agents as a registered model API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from safeactbench.agents import get_agent
from safeactbench.harness.inspect_task import safeactbench
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import read_episodes
from safeactbench.suite.data import load_suite


def sample_cases(per_protocol: int = 2) -> list[str]:
    picked: dict[str, list[str]] = defaultdict(list)
    for case in load_suite():
        if len(picked[case.protocol.value]) < per_protocol:
            picked[case.protocol.value].append(case.id)
    return [i for ids in picked.values() for i in ids]


def run_eval(agent: str, cases: list[str], tmp_path: Path, run_dir: Path | None = None):
    task = safeactbench(cases=",".join(cases), run_dir=str(run_dir) if run_dir else None)
    [log] = inspect_eval(task, model=f"safeactbench/{agent}", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("agent", ["reference", "eager", "shallow"])
def test_inspect_matches_the_in_process_loop(agent: str, tmp_path: Path) -> None:
    cases = sample_cases()
    log = run_eval(agent, cases, tmp_path)
    assert log.samples is not None and len(log.samples) == len(cases)
    by_id = {c.id: c for c in load_suite()}
    for sample in log.samples:
        score = sample.scores["evidence_scorer"]
        direct = play_scripted(Job(by_id[sample.metadata["case_id"]], "original", 0), get_agent(agent))
        assert score.value == direct.verdict.score, sample.id
        assert score.answer == direct.verdict.outcome.value, sample.id
        if agent == "reference":
            assert score.value == 1
        if agent == "eager" and sample.metadata["protocol"] != "Legacy":
            assert score.value == 0
            assert "EVALUATOR FINDINGS" in score.explanation


def test_scorer_appends_episode_records(tmp_path: Path) -> None:
    cases = sample_cases(1)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    run_eval("reference", cases, tmp_path, run_dir)
    records = read_episodes(run_dir / "episodes.jsonl")
    assert sorted(r.case_id for r in records) == sorted(cases)
    assert all(r.harness == "inspect" and r.verdict.score == 1 for r in records)
    assert all(r.trajectory.steps for r in records)


def test_inspect_cli_entry_point(tmp_path: Path) -> None:
    """`inspect eval safeactbench/safeactbench` works from Inspect's own command line, offline."""
    cases = sample_cases(1)
    inspect_bin = Path(sys.executable).parent / "inspect"
    env = {**os.environ, "NO_COLOR": "1"}
    for agent, expected in (("reference", 1.0), ("eager", None)):
        out = subprocess.run(
            [
                str(inspect_bin),
                "eval",
                "safeactbench/safeactbench",
                "--model",
                f"safeactbench/{agent}",
                "-T",
                f"cases={','.join(cases)}",
                "--log-dir",
                str(tmp_path / agent),
                "--display",
                "none",
                "--log-format",
                "json",
            ],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        [log_file] = list((tmp_path / agent).glob("*.json"))
        log = json.loads(log_file.read_text())
        values = [s["scores"]["evidence_scorer"]["value"] for s in log["samples"]]
        if expected is not None:
            assert values == [expected] * len(cases)
        else:
            interactive = [s for s in log["samples"] if s["metadata"]["protocol"] != "Legacy"]
            assert all(s["scores"]["evidence_scorer"]["value"] == 0 for s in interactive)


def test_api_failures_are_missing_episodes_and_resume_retries_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from safeactbench.cli import app

    out = tmp_path / "run"
    cases = ",".join(sample_cases(1)[:3])
    base = ["run", "--model", "safeactbench/reference", "--cases", cases, "--out", str(out)]
    result = CliRunner().invoke(app, [*base, "--model-arg", "fail=always"])
    assert result.exit_code == 1 and "no episode completed" in result.output, result.output
    records = read_episodes(out / "episodes.jsonl")
    assert len(records) == 3 and all(r.status == "missing" and r.verdict is None for r in records)
    assert all(r.missing_reason.startswith("runtime_error: ConnectionError") for r in records)
    meta = json.loads((out / "run.json").read_text())
    assert meta["completed"] == 0 and meta["missing"] == {"runtime_error": 3}
    # a resume that fails again records the new attempts (each supersedes the earlier missing one)
    result = CliRunner().invoke(app, [*base, "--model-arg", "fail=always", "--resume"])
    assert result.exit_code == 1 and "no episode completed" in result.output, result.output
    again = read_episodes(out / "episodes.jsonl")
    assert len(again) == 6 and again[:3] == records and all(r.status == "missing" for r in again[3:])
    assert sorted(r.key for r in again[3:]) == sorted(r.key for r in records)
    # a flaky API (one failure per sample) succeeds within Inspect's retries; resume re-runs the missing
    result = CliRunner().invoke(app, [*base, "--model-arg", "fail=1", "--resume"])
    assert result.exit_code == 0, result.output
    from safeactbench.runs.store import RunStore

    latest = RunStore(out).records()
    assert len(latest) == 3 and all(r.status == "completed" and r.verdict.score == 1 for r in latest)
    assert json.loads((out / "run.json").read_text())["missing"] == {}
