"""A suite is a directory: `--suite DIR` makes every command play it instead of the packaged suite,
and runs record which suite they played (name, version, checksum), so a report or a re-score
refuses to mix suites silently."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.runs.runconfig import active_suite
from safeactbench.runs.store import read_episodes
from safeactbench.suite.catalog import use_suite
from safeactbench.suite.data import load_suite, write_suite
from served import TWO_PER_PROTOCOL, play_over_mcp

EDITED = "SAB-V1-001"


@pytest.fixture
def mini(tmp_path: Path) -> Iterator[Path]:
    """Ten cases of the packaged suite, one of them with another task text, as suite `mini` 0.0.1."""
    cases = [c for c in load_suite() if c.id in TWO_PER_PROTOCOL]
    cases = [c.model_copy(update={"task": f"{c.task} (edited)"}) if c.id == EDITED else c for c in cases]
    write_suite(cases, tmp_path / "mini", name="mini", version="0.0.1")
    yield tmp_path / "mini"
    use_suite(None)  # the commands ran in this process: back to the packaged suite


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_plays_the_suite_it_is_given(mini: Path, tmp_path: Path) -> None:
    packaged = active_suite().checksum
    suite = ["--suite", str(mini)]
    assert "10 cases lint clean" in cli("validate", *suite)
    assert len(cli("cases", *suite, "--json").splitlines()) == len(TWO_PER_PROTOCOL)
    assert "(edited)" in cli("show", EDITED, *suite)
    scripted, inspected = tmp_path / "scripted", tmp_path / "inspect"
    cli("run", *suite, "--agent", "reference", "--out", str(scripted), "--no-report")
    cli("run", *suite, "--model", "safeactbench/reference", "--out", str(inspected), "--no-report")
    for run in (scripted, inspected):
        records = read_episodes(run / "episodes.jsonl")
        assert sorted(r.case_id for r in records) == sorted(TWO_PER_PROTOCOL)
        assert all(r.verdict is not None and r.verdict.score == 1 for r in records)
        pinned = json.loads((run / "run.json").read_text())["config"]["suite"]
        assert (pinned["name"], pinned["version"]) == ("mini", "0.0.1")
        assert pinned["checksum"] != packaged
    cli("evaluate", *suite, str(scripted / "episodes.jsonl"))
    cli("report", *suite, str(scripted), str(inspected), "--out", str(tmp_path / "report"))
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert data["paired"][0]["common_cases"] == sum(not c.startswith("SAB-L") for c in TWO_PER_PROTOCOL)


def test_the_mcp_server_serves_a_case_only_its_suite_holds(mini: Path, tmp_path: Path) -> None:
    from safeactbench.core.evaluator import evaluate

    own = next(c for c in load_suite() if c.id == "SAB-V2-001").model_copy(update={"id": "MINI-V2-001"})
    write_suite([own], tmp_path / "own", name="own", version="1.0.0")
    trajectory = play_over_mcp(tmp_path / "own", own.id, tmp_path)
    assert trajectory.end_reason == "submitted" and evaluate(own, trajectory).score == 1
    result = CliRunner().invoke(app, ["mcp", "--case", own.id, "--out", str(tmp_path / "none")])
    assert result.exit_code != 0 and "MINI-V2-001" in result.output, result.output  # the packaged suite lacks it


def test_a_run_of_another_suite_is_refused_not_mixed(mini: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    cli("run", "--suite", str(mini), "--agent", "reference", "--out", str(run), "--no-report")
    use_suite(None)
    for args in (["report", str(run), "--out", str(tmp_path / "r")], ["evaluate", str(run / "episodes.jsonl")]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code != 0 and "a run of suite mini 0.0.1" in result.output, result.output
        assert "pass --suite" in result.output


def test_a_directory_without_a_suite_is_named(tmp_path: Path) -> None:
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "cases.jsonl").write_text("")
    for directory, missing in ((tmp_path / "nowhere", "not a suite directory"), (tmp_path / "half", "no tools.json")):
        result = CliRunner().invoke(app, ["cases", "--suite", str(directory)])
        assert result.exit_code == 2 and "--suite:" in result.output and missing in result.output, result.output
    assert "SAB-V1-001" in cli("cases")  # nothing changed


def test_the_validation_report_names_the_suite_it_validated(mini: Path, tmp_path: Path) -> None:
    report = tmp_path / "mini.md"
    cli("validate", "--suite", str(mini), "--report", str(report))
    assert report.read_text().splitlines()[0] == "# Suite mini 0.0.1 — validation report"
