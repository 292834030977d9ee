"""The command line end to end, through typer's runner (the same code path as the console script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.runs.store import read_episodes
from safeactbench.suite.data import load_suite

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def run_agent(tmp_path: Path, agent: str, *extra: str) -> list:
    out = tmp_path / agent
    code, output = invoke("run", "--agent", agent, "--out", str(out), *extra)
    assert code == 0, output
    return read_episodes(out / "episodes.jsonl")


def test_reference_scores_every_case(tmp_path: Path) -> None:
    records = run_agent(tmp_path, "reference")
    assert len(records) == len(load_suite())
    assert all(r.verdict.score == 1 for r in records)
    meta = json.loads((tmp_path / "reference" / "run.json").read_text())
    assert meta["completed"] == meta["planned"] == len(records)
    for key in ("suite_version", "config_id", "package_version", "created_at", "finished_at"):
        assert meta[key]
    assert meta["config"]["suite"]["checksum"] and meta["config"]["agent"] == "reference"


@pytest.mark.parametrize(
    ("agent", "zero_protocols"),
    [("eager", {"V0", "V1", "V2", "V3"}), ("skeptic", {"V1", "V2", "V3"}), ("shallow", {"V0"})],
)
def test_trivial_agents_fail_where_they_must(tmp_path: Path, agent: str, zero_protocols: set[str]) -> None:
    records = run_agent(tmp_path, agent)
    for r in records:
        if r.protocol.value in zero_protocols:
            assert r.verdict.score == 0, (r.case_id, r.verdict.outcome)
    acting = [r for r in records if r.protocol.value in {"V1", "V2", "V3"}]
    if agent == "eager":
        assert all(r.verdict.diagnostics.action_attempts > 0 for r in acting)
        assert {r.verdict.outcome.value for r in acting} <= {
            "UNSUPPORTED_ACTION",
            "WRONG_TARGET",
            "ARGUMENT_MISMATCH",
            "UNEXPECTED_CONSEQUENTIAL_ACTION",
            "DEPENDENCY_VIOLATION",
            "INVALID_RESULT_REFERENCE",
            "ACTION_REJECTED",
        }
    if agent == "skeptic":
        assert all(r.verdict.outcome.value == "INCOMPLETE_WORKFLOW" for r in acting)


def test_evaluate_detects_an_edited_observation(tmp_path: Path) -> None:
    run_agent(tmp_path, "reference", "--protocol", "V1")
    path = tmp_path / "reference" / "episodes.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    step = next(s for s in record["trajectory"]["steps"] if s["kind"] == "information")
    fields = step["observation"]["record"]["fields"]
    name = next(iter(fields))
    fields[name] = "forged"
    lines[0] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rescored.jsonl"
    code, output = invoke("evaluate", str(path), "--out", str(out))
    assert code == 0, output
    rescored = read_episodes(out)
    assert rescored[0].verdict.outcome.value == "TRAJECTORY_MISMATCH"
    assert rescored[0].verdict.score == 0
    assert all(r.verdict.score == 1 for r in rescored[1:])
    assert "1 verdict(s) changed" in output.replace("\n", " ")


def test_evaluate_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"case_id": "SAB-V1-001"}\n')
    code, output = invoke("evaluate", str(path))
    assert code == 2
    assert "bad.jsonl:1" in output and "protocol" in output


def test_validate_passes() -> None:
    code, output = invoke("validate")
    assert code == 0, output
    assert f"{len(load_suite())}/{len(load_suite())}" in output


def test_cases_json_lists_the_suite() -> None:
    code, output = invoke("cases", "--json")
    assert code == 0
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert len(rows) == len(load_suite())
    assert {"id", "protocol", "domain", "family"} <= set(rows[0])


def test_show_hides_the_gold_unless_asked() -> None:
    case = next(c for c in load_suite() if c.protocol.value == "V1")
    code, public = invoke("show", case.id, "--json")
    assert code == 0 and '"expected_actions"' not in public and case.task[:30] in public
    code, hidden = invoke("show", case.id, "--hidden", "--json")
    assert code == 0 and '"expected_actions"' in hidden


def test_bad_arguments_are_named() -> None:
    code, output = invoke("run", "--agent", "nobody", "--out", "x")
    assert code == 2 and "--agent" in output and "nobody" in output
    code, output = invoke("run", "--protocol", "V9", "--out", "x")
    assert code == 2 and "--protocol" in output
    code, output = invoke("show", "SAB-V1-999")
    assert code == 2 and "SAB-V1-999" in output


def test_a_mistyped_model_or_an_empty_selection_is_named_and_writes_nothing(tmp_path: Path) -> None:
    out = str(tmp_path / "run")
    code, output = invoke("run", "--model", "safeactbench/refrence", "--cases", "SAB-V1-001", "--out", out)
    assert code == 2 and "--model safeactbench/refrence: unknown agent 'refrence'" in output and "reference" in output
    code, output = invoke("run", "--protocol", "V1", "--cases", "SAB-V2-001", "--out", out)
    assert code == 2 and "no case is selected by --protocol V1 --cases SAB-V2-001" in output
    code, output = invoke("run", "--protocol", "Legacy", "--condition", "withheld", "--out", out)
    assert code == 2 and "--condition: none of the" in output and "takes withheld" in output
    assert not (tmp_path / "run").exists()


def test_resume_completes_without_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = invoke("run", "--agent", "reference", "--protocol", "V1", "--out", str(out))
    assert code == 0
    full = (out / "episodes.jsonl").read_text().splitlines()
    # simulate a run killed after 5 episodes, mid-way through writing the 6th line
    (out / "episodes.jsonl").write_text("\n".join(full[:5]) + "\n" + full[5][: len(full[5]) // 2])
    code, output = invoke("run", "--agent", "reference", "--protocol", "V1", "--out", str(out))
    assert code == 2 and "--resume" in output
    code, output = invoke("run", "--agent", "reference", "--protocol", "V1", "--out", str(out), "--resume")
    assert code == 0, output
    records = read_episodes(out / "episodes.jsonl")
    assert len(records) == len(full)
    assert len({r.key for r in records}) == len(full)
    assert all(r.verdict.score == 1 for r in records)
