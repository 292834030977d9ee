"""The report warns, in the report itself, when configurations are not directly comparable."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from typer.testing import CliRunner

from safeactbench.analysis.report import build_report
from safeactbench.analysis.runs import load_runs
from safeactbench.cli import app
from safeactbench.runs.runconfig import active_suite


def run(tmp_path: Path, agent: str, cases: str) -> Path:
    out = tmp_path / agent
    result = CliRunner().invoke(app, ["run", "--agent", agent, "--cases", cases, "--out", str(out), "--no-report"])
    assert result.exit_code == 0, result.output
    return out


def test_different_case_sets_are_named_with_what_the_pairs_compare(tmp_path: Path) -> None:
    runs = load_runs(
        [run(tmp_path, "reference", "SAB-V1-001,SAB-V1-002,SAB-V0-001"), run(tmp_path, "shallow", "SAB-V1-001")]
    )
    report = build_report(runs, resamples=200)
    [section] = [s for s in report.sections if s.id == "comparability"]
    [note] = [n for n in section.notes if "different case sets" in n]
    assert "reference 3; shallow 1" in note and "(1 are common to all of them)" in note
    assert report.data["comparability"] == section.notes


def test_the_same_cases_need_no_warning(tmp_path: Path) -> None:
    runs = load_runs([run(tmp_path, "reference", "SAB-V1-001"), run(tmp_path, "shallow", "SAB-V1-001")])
    report = build_report(runs, resamples=200)
    assert not any(s.id == "comparability" for s in report.sections)
    assert "comparability" not in report.data


def test_runs_of_different_suites_are_named(tmp_path: Path) -> None:
    """A run pins its suite and `report` refuses one of another suite than the active one, so two
    suites meet only through a run written before runs pinned their configuration (its run.json
    names only a suite version): the report says they are different benchmarks."""
    current, other = load_runs([run(tmp_path, "reference", "SAB-V1-001"), run(tmp_path, "shallow", "SAB-V1-001")])
    unpinned = {key: value for key, value in other.meta.items() if key != "config"} | {"suite_version": "0.2.0"}
    report = build_report([current, dataclasses.replace(other, meta=unpinned)], resamples=200)
    [section] = [s for s in report.sections if s.id == "comparability"]
    [note] = [n for n in section.notes if "different suites" in n]
    assert "The runs come from 2 different suites" in note and "safeactbench 0.2.0: shallow" in note
    assert f"safeactbench {active_suite().version} (checksum {active_suite().checksum[:12]}): reference" in note
