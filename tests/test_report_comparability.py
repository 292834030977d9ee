"""The report warns, in the report itself, when configurations are not directly comparable."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from safeactbench.analysis.report import build_report
from safeactbench.analysis.runs import load_runs
from safeactbench.cli import app


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
