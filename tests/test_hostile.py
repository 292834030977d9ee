"""Hostile files: broken or oversized case files, malformed trajectories, garbage in episodes.jsonl,
path tricks in run directories. Every one ends in a clear error naming the file, line and field (or
a structured INVALID_TRAJECTORY verdict) - never a traceback - and nothing is written outside the
run directory that was asked for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Protocol
from safeactbench.core.script import run_script
from safeactbench.core.world import World
from safeactbench.runs.store import EpisodeRecord, RunStore, StoreError, read_episodes
from safeactbench.suite.data import CaseFileError, load_suite, read_case_file, read_suite, write_suite

SUITE = load_suite()
V1 = next(c for c in SUITE if c.protocol == Protocol.V1)
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output + (str(result.exception) if result.exception else "")


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# ---------------------------------------------------------------------------- case files


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "suite"
    write_suite([c for c in SUITE if c.domain == "customer"][:3], directory)
    return directory


def set_line(directory: Path, number: int, text: str | bytes) -> None:
    path = directory / "cases.jsonl"
    lines = path.read_bytes().splitlines()
    lines[number - 1] = text.encode() if isinstance(text, str) else text
    path.write_bytes(b"\n".join(lines) + b"\n")


def edited_case(directory: Path, number: int, **changes: Any) -> str:
    data = json.loads((directory / "cases.jsonl").read_text().splitlines()[number - 1])
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{broken", r"cases\.jsonl:2: not valid JSON \(Expecting property name"),
        ("[1, 2]", r"cases\.jsonl:2: a case must be a JSON object, got list"),
        ('"just a string"', r"cases\.jsonl:2: a case must be a JSON object, got str"),
        ("[" * 100_000 + "]" * 100_000, r"cases\.jsonl:2: (not valid JSON|case is larger)"),
        ("[" * 20_000 + "]" * 20_000, r"cases\.jsonl:2: not valid JSON \(nested too deeply\)"),
        ('{"domain": "customer", ' + '"pad": "' + "x" * 3_000_000 + '"}', r"cases\.jsonl:2: case is larger than"),
    ],
)
def test_broken_case_lines_name_file_and_line(suite_dir: Path, line: str, message: str) -> None:
    set_line(suite_dir, 2, line)
    with pytest.raises(CaseFileError, match=message):
        read_suite(suite_dir)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"budget": "many"}, r"cases\.jsonl:3: field budget"),
        ({"protocol": "V9"}, r"cases\.jsonl:3: field protocol"),
        ({"records": "all of them"}, r"cases\.jsonl:3: field records"),
        ({"records": [{"type": "charge", "id": "C1", "version": 0}]}, r"cases\.jsonl:3: field records\.0\.version"),
        ({"domain": "nowhere"}, r"cases\.jsonl:3: field domain: no tools for domain 'nowhere'"),
        ({"unexpected": 1}, r"cases\.jsonl:3: field unexpected"),
        ({"requirements": [{"id": "r1", "ref": "charge:C1", "field": "x", "op": "about"}]}, r"requirements\.0\.op"),
    ],
)
def test_wrong_types_in_a_case_name_the_field(suite_dir: Path, changes: dict[str, Any], message: str) -> None:
    set_line(suite_dir, 3, edited_case(suite_dir, 3, **changes))
    with pytest.raises(CaseFileError, match=message):
        read_suite(suite_dir)


def test_a_three_megabyte_case_is_refused_before_it_is_parsed(suite_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_line(suite_dir, 1, edited_case(suite_dir, 1, notes="n" * 3_000_000))
    parsed: list[int] = []  # the size of every text the JSON parser is given
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, *a, **k: (parsed.append(len(text)), loads(text, *a, **k))[1])
    with pytest.raises(CaseFileError, match=r"cases\.jsonl:1: case is larger than 2000000 bytes"):
        read_suite(suite_dir)
    assert max(parsed, default=0) < 2_000_000  # refused by its size, never parsed
    monkeypatch.setattr(json, "loads", loads)
    single = suite_dir / "one.jsonl"
    single.write_text("x" * 3_000_000 + "\n")
    with pytest.raises(CaseFileError, match=r"one\.jsonl:1: case is larger than"):
        read_case_file(single)


def test_invalid_utf8_and_missing_files_are_named(suite_dir: Path) -> None:
    set_line(suite_dir, 2, b'{"id": "\xff\xfe"}')
    with pytest.raises(CaseFileError, match=r"cases\.jsonl: not UTF-8 text"):
        read_suite(suite_dir)
    (suite_dir / "cases.jsonl").unlink()
    with pytest.raises(CaseFileError, match=r"cases\.jsonl: No such file"):
        read_suite(suite_dir)
    with pytest.raises(CaseFileError, match=r"nope\.jsonl: No such file"):
        read_case_file(suite_dir / "nope.jsonl")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"tools\.json: not valid JSON"),
        ("[1, 2]", r"tools\.json: expected an object mapping each domain"),
        ('{"customer": {"get_charge": 1}}', r"tools\.json: field customer: expected a list of tools"),
        ('{"customer": [{"name": "x", "kind": "maybe"}]}', r"tools\.json: customer\[0\]: field"),
    ],
)
def test_broken_tools_file_is_named(suite_dir: Path, content: str, message: str) -> None:
    (suite_dir / "tools.json").write_text(content)
    with pytest.raises(CaseFileError, match=message):
        read_suite(suite_dir)


# ---------------------------------------------------------------------------- trajectories


def reference_trajectory() -> dict[str, Any]:
    episode = Episode(V1)
    run_script(episode, V1.reference)
    return episode.trajectory().model_dump(mode="json")


def assert_invalid(trajectory: Any, where: str) -> None:
    verdict = evaluate(V1, trajectory)
    assert verdict.score == 0 and verdict.outcome.value == "INVALID_TRAJECTORY", verdict.findings
    assert where in verdict.findings[0].detail, verdict.findings[0].detail


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda t: t["steps"][0].update(kind="telepathy"), "steps.0.kind"),
        (lambda t: t["steps"][1].update(index="one"), "steps.1.index"),
        (lambda t: t["steps"][0].update(observation=["not", "an", "object"]), "steps.0.observation"),
        (lambda t: t["steps"][0].update(tool=None), "steps.0.tool"),
        (lambda t: t["steps"][0].update(secret="extra"), "steps.0.secret"),
        (lambda t: t.update(steps={"0": "x"}), "steps"),
        (lambda t: t.update(end_reason="vanished"), "end_reason"),
        (lambda t: t["steps"].append(dict(t["steps"][-1], index=len(t["steps"]))), "after the episode ended"),
        (lambda t: t["steps"][1].update(index=7), "carries index 7"),
    ],
)
def test_malformed_trajectories_are_invalid_and_name_the_problem(edit: Any, where: str) -> None:
    trajectory = reference_trajectory()
    edit(trajectory)
    assert_invalid(trajectory, where)
    assert_invalid(json.dumps(trajectory), where)


@pytest.mark.parametrize(
    "raw",
    [b"\xff\xfe garbage", "{", "[]", "42", "null", '"steps"', "[" * 50_000 + "]" * 50_000, '{"steps": ' + "[" * 5000],
)
def test_garbage_is_an_invalid_trajectory_not_an_exception(raw: str | bytes) -> None:
    verdict = evaluate(V1, raw)
    assert verdict.outcome.value == "INVALID_TRAJECTORY" and verdict.findings[0].detail


def test_huge_arrays_end_quickly_in_a_structured_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    trajectory = reference_trajectory()
    step = trajectory["steps"][0]
    trajectory["steps"] = [dict(step, index=i) for i in range(60_000)]
    calls: list[str] = []  # every call the replay makes on the world
    for name in ("read", "act"):
        real = getattr(World, name)
        monkeypatch.setattr(
            World, name, lambda self, *a, _real=real, _name=name: (calls.append(_name), _real(self, *a))[1]
        )
    assert_invalid(trajectory, "after the episode ended")
    assert len(calls) <= V1.budget  # the replay stops where the episode must have ended, not 60,000 calls later
    forged = reference_trajectory()
    forged["steps"][0]["observation"]["record"]["fields"]["padding"] = list(range(100_000))
    verdict = evaluate(V1, forged)
    assert verdict.outcome.value == "TRAJECTORY_MISMATCH" and len(verdict.findings[0].detail) < 1000


# ---------------------------------------------------------------------------- episodes.jsonl


def write_run(tmp_path: Path, n: int = 3) -> Path:
    out = tmp_path / "run"
    cases = ",".join(c.id for c in SUITE[:n])
    code, output = invoke("run", "--agent", "reference", "--cases", cases, "--out", str(out), "--no-report")
    assert code == 0, output
    return out


def test_garbage_lines_in_episodes_are_named(tmp_path: Path) -> None:
    out = write_run(tmp_path)
    path = out / "episodes.jsonl"
    lines = path.read_text().splitlines()
    for garbage, message in [
        ("this is not json", r"episodes\.jsonl:2: field \(line\): Invalid JSON"),
        ('{"case_id": 7}', r"episodes\.jsonl:2: field case_id"),
        ("[]", r"episodes\.jsonl:2: field \(line\)"),
        (json.dumps({**json.loads(lines[1]), "status": "lost"}), r"episodes\.jsonl:2: field status"),
        (
            lines[1][:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
            r"episodes\.jsonl:2: .*(nested too deeply|recursion limit)",
        ),
    ]:
        path.write_text("\n".join([lines[0], garbage, *lines[1:]]) + "\n")
        with pytest.raises(StoreError, match=message):
            read_episodes(path)
        code, output = invoke("evaluate", str(path))
        assert code == 2 and "episodes.jsonl:2" in output, output
    path.write_bytes(b"\xff\xfe\n")
    with pytest.raises(StoreError, match=r"episodes\.jsonl: not UTF-8"):
        read_episodes(path)


def test_resume_refuses_garbage_in_the_middle_and_keeps_the_file(tmp_path: Path) -> None:
    out = write_run(tmp_path)
    path = out / "episodes.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"episodes\.jsonl:2: "):
        RunStore(out).completed_keys()
    assert path.read_bytes() == before  # nothing after the bad line was thrown away
    cases = ",".join(c.id for c in SUITE[:3])  # the run's own options: only the file is wrong
    code, output = invoke("run", "--agent", "reference", "--cases", cases, "--out", str(out), "--resume", "--no-report")
    assert code == 2 and "episodes.jsonl:2" in output


def test_resume_cuts_only_a_torn_last_line(tmp_path: Path) -> None:
    out = write_run(tmp_path, n=4)
    path = out / "episodes.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n\n" + lines[2][: len(lines[2]) // 2])  # a blank line, a torn one
    cases = ",".join(c.id for c in SUITE[:4])
    code, output = invoke("run", "--agent", "reference", "--cases", cases, "--out", str(out), "--resume", "--no-report")
    assert code == 0, output
    records = read_episodes(path)
    assert sorted(r.case_id for r in records) == sorted(c.id for c in SUITE[:4])
    assert all(isinstance(r, EpisodeRecord) and r.verdict and r.verdict.score == 1 for r in records)


def test_a_broken_run_json_is_named_on_resume(tmp_path: Path) -> None:
    out = write_run(tmp_path)
    for content in ["{oops", "[1, 2]", "\udcff", "[" * 100_000 + "]" * 100_000]:
        (out / "run.json").write_text(content, encoding="utf-8", errors="surrogateescape")
        with pytest.raises(StoreError, match=r"run\.json"):
            RunStore(out).completed_keys()


# ---------------------------------------------------------------------------- run directories


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory two levels down inside tmp_path (so '../..' stays inside tmp_path)."""
    cwd = tmp_path / "w1" / "w2"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    return tmp_path


def run_into(out: str, *extra: str) -> tuple[int, str]:
    return invoke("run", "--agent", "reference", "--cases", V1.id, "--out", out, "--no-report", *extra)


RUN_FILES = {"episodes.jsonl", "run.json", ".lock"}


def inside(created: set[str], run_dir: str) -> set[str]:
    """What was created outside `run_dir` (its own missing parents excepted)."""
    parents = {str(Path(run_dir).parents[i]) for i in range(len(Path(run_dir).parents) - 1)}
    return {p for p in created if p != run_dir and not p.startswith(run_dir + "/") and p not in parents}


@pytest.mark.parametrize(
    ("out", "run_dir"),
    [
        ("../../x", "x"),
        ("../../y/../z", "z"),  # a missing 'y' is not created on the way
        ("new/../../w2b", "w1/w2b"),
        ("deep/er/run-1.v2_ok", "w1/w2/deep/er/run-1.v2_ok"),
    ],
)
def test_the_run_directory_is_exactly_the_path_given(sandbox: Path, out: str, run_dir: str) -> None:
    before = tree(sandbox)
    code, output = run_into(out)
    assert code == 0, output
    created = tree(sandbox) - before
    assert {f"{run_dir}/{name}" for name in RUN_FILES} <= created
    # everything new is the run directory, what is in it, or the missing parents of the path asked for
    assert not inside(created, run_dir), created


def test_the_report_of_a_run_stays_inside_it(sandbox: Path) -> None:
    before = tree(sandbox)
    code, output = invoke("run", "--agent", "reference", "--cases", V1.id, "--out", "../../r/../rr")
    assert code == 0, output
    created = tree(sandbox) - before
    assert "rr/report" in created and not inside(created, "rr"), created


def test_an_absolute_run_directory_is_fine(sandbox: Path) -> None:
    target = sandbox / "abs" / "run"
    before = tree(sandbox)
    code, output = run_into(str(target))
    assert code == 0, output
    assert tree(target) == RUN_FILES
    assert tree(sandbox) - before == {"abs", "abs/run", *(f"abs/run/{n}" for n in RUN_FILES)}


@pytest.mark.parametrize("out", ["..", "../..", "sub/..", ".", "", "bad name", "semi;colon", "tab\tname", "nul\x00l"])
def test_unsafe_run_names_are_refused_and_nothing_is_written(sandbox: Path, out: str) -> None:
    before = tree(sandbox)
    code, output = run_into(out)
    assert code == 2, output
    assert ("run directory" in output or "null byte" in output) and "Traceback" not in output
    assert tree(sandbox) == before


def test_a_file_in_the_way_is_a_clear_error(sandbox: Path) -> None:
    (sandbox / "w1" / "w2" / "taken").write_text("a file")
    code, output = run_into("taken")
    assert code == 2 and "taken" in output
    code, output = invoke("evaluate", "nope.jsonl")
    assert code == 2 and "nope.jsonl" in output
    out = write_run(sandbox)
    code, output = invoke("evaluate", str(out / "episodes.jsonl"), "--out", str(sandbox / "missing" / "x.jsonl"))
    assert code == 2 and "missing" in output


def test_a_file_where_a_command_writes_a_directory_is_named_before_any_work(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("a file")
    release = Path(__file__).parent / "fixtures" / "safeact_release"
    for args, option in [
        (["import", "safeact-release", str(release), "--out", str(taken)], f"--out {taken}: exists"),
        (["import", "safeact-release", str(release), "--out", str(taken / "sub")], f"--out {taken / 'sub'}: {taken}"),
        (["serve-agent", "reference", "--stats", str(taken / "s.json")], f"--stats {taken / 's.json'}: {taken}"),
        (["serve-agent", "reference", "--stats", str(tmp_path)], f"--stats {tmp_path}: is a directory"),
    ]:
        code, output = invoke(*args)
        assert code == 2 and option in output, output
    assert taken.read_text() == "a file"
