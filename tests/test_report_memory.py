"""What keeps a report's memory flat, checked for sameness: cases parsed one at a time answer as the
loaded suite does, records verified line by line come back as each verified on its own
(`verify_record`), a row renders exactly as the whole record, and rows spilled past the memory
budget read back as they went in - a report whose rows wait on disk is the report whose rows stay
in memory. The memory itself is measured in `python -m benchmarks` (e2e: --repeat 10 and 40 with
its report), never asserted here."""

from __future__ import annotations

import errno
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.analysis.command import report
from safeactbench.analysis.runs import ReportError, load_run
from safeactbench.cli import app
from safeactbench.core.render import render_episode
from safeactbench.runs import rowstore
from safeactbench.runs.records import EpisodeLines, ModelTurn, RunId, StoreError, read_lines, read_numbered
from safeactbench.runs.rows import EpisodeRow, decode_row, encode_row, episode_row, verdict_row
from safeactbench.runs.rowstore import MemoryBudget, RowStore
from safeactbench.runs.store import RunStore
from safeactbench.runs.verify import verify_lines, verify_record
from safeactbench.suite.catalog import UnknownCase, get_case, indexed_case
from safeactbench.suite.data import load_suite


def test_indexed_cases_are_the_suites_cases() -> None:
    cases = random.Random(3).sample(list(load_suite()), 25)
    for case in cases:
        assert indexed_case(case.id) == get_case(case.id) == case
        conditions = ("withheld", "static") if case.protocol.value != "Legacy" else ("original",)
        for condition in conditions:
            if case.protocol.value in ("V1", "V2", "V3") or condition == "original":
                assert indexed_case(case.id, condition) == get_case(case.id, condition)
    for bad in (("SAB-NOPE-1", "original"), (cases[0].id, "no_such_condition")):
        with pytest.raises(UnknownCase) as indexed:
            indexed_case(*bad)
        with pytest.raises(UnknownCase) as loaded:
            get_case(*bad)
        assert str(indexed.value) == str(loaded.value)


def test_line_by_line_verification_gives_the_records_by_episode(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--agent", "shallow", "--protocol", "V1,V2", "--domain", "research", "--repeat", "2",
            "--condition", "original,withheld", "--out", str(out), "--no-report"]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    path = out / "episodes.jsonl"
    # a stored verdict that differs from the replay, to be reported at its line
    lines = path.read_text().splitlines()
    record = json.loads(lines[3])
    record["verdict"]["score"] = 1 - record["verdict"]["score"]
    lines[3] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    run = RunId.of(RunStore(out).config())
    stored = dict(read_numbered(path))
    # each stored record verified on its own, the whole file in memory: what the two passes must give
    whole = {number: verify_record(record, f"line {number}") for number, record in stored.items()}
    rows: list[EpisodeRow] = []
    heard: list[int] = []
    lined = verify_lines(read_lines(path), path, run=run, keep=episode_row, into=rows,
                         on_change=lambda number, stored, derived: heard.append(number))  # fmt: skip
    by_key = sorted(whole.values(), key=lambda r: r.key)  # replayed by case, condition and repetition
    assert [r.key for r in rows] == [r.key for r in by_key]
    assert [r.verdict for r in rows] == [r.verdict and verdict_row(r.verdict) for r in by_key]
    assert lined.changed_lines == heard == [4]
    assert whole[4].verdict != stored[4].verdict
    assert all(stored[r.line].key == r.key for r in rows)  # each row remembers its line
    for full, kept in zip(by_key, rows, strict=True):
        assert full.trajectory and kept.trajectory and full.verdict and kept.verdict
        # the row keeps what the analysis reads of the steps, not their text
        assert [(s.kind, s.tool, s.observation["status"]) for s in kept.trajectory.steps] == [
            (s.kind, s.tool, s.observation.get("status")) for s in full.trajectory.steps
        ]
        if full.transcript is not None and kept.transcript is not None:
            assert len(kept.transcript) == len(full.transcript)
    # what the page shows is read back from the file, by line, in the order asked
    loaded = load_run(out)
    order = sorted(loaded.records, key=lambda r: (r.case_id, r.repetition, r.condition), reverse=True)
    for kept, back in zip(order, loaded.whole(order), strict=True):
        assert back == stored[kept.line] and back.key == kept.key
        assert back.trajectory is not None and kept.verdict is not None
        assert render_episode(back.trajectory, kept.verdict).startswith("TRAJECTORY EXCERPT")
    path.write_text("\n".join(lines[1:]) + "\n")  # the file changes under the report
    with pytest.raises(ReportError, match="changed while the report was written"):
        list(loaded.whole(order))
    # an unknown case is named at its line either way
    record = json.loads(lines[0])
    record["case_id"] = "SAB-V1-999"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(Exception, match=r"episodes.jsonl:1: no case 'SAB-V1-999' in the suite"):
        verify_lines(read_lines(path), path, run=run, keep=episode_row, into=[])


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_lines_read_on_demand_split_as_the_whole_file_splits(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`EpisodeLines` holds offsets, not text, and gives the lines `read_lines` gives: line breaks
    \\n, \\r\\n and a lone \\r (across chunk boundaries too), blank lines, a torn last line."""
    monkeypatch.setattr(EpisodeLines, "CHUNK", chunk)
    path = tmp_path / "episodes.jsonl"
    samples = [
        b"",
        b"{}\n",
        b'{"a":1}\r\n{"b":2}\n',
        b"x\ry\r\n\r\n\n\rz",
        b"\r",
        b"\r\n",
        b'{"\xc3\xa9":1}\n{"t":',
        b"a\n\r",
    ]
    for text in samples:
        path.write_bytes(text)
        for torn in (False, True):
            lazy = EpisodeLines(path, torn_tail=torn)
            assert list(lazy) == read_lines(path, torn_tail=torn), (text, torn)
            assert [lazy[i] for i in range(len(lazy))] == read_lines(path, torn_tail=torn)
    path.write_bytes(b'{"a":1}\n{"b":"\xff"}\n')
    with pytest.raises(StoreError) as whole:
        read_lines(path)
    with pytest.raises(StoreError) as lazy_error:
        EpisodeLines(path)
    assert str(lazy_error.value) == str(whole.value)


def test_rows_past_the_budget_read_back_as_they_went_in(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--agent", "eager", "--protocol", "V0,V2", "--domain", "legal_finance", "--out", str(out),
            "--no-report"]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    rows = list(load_run(out).records)
    assert all(row.line > 0 for row in rows) and any(row.verdict and row.verdict.findings for row in rows)
    turns = (ModelTurn(text_tool_call=False), ModelTurn(text_tool_call=True))
    rows[0] = replace(rows[0], transcript=turns, usage={"input_tokens": 7, "output_tokens": 2}, model="m/x")
    assert [decode_row(encode_row(row)) for row in rows] == rows  # the codec report rows are spilled with
    budget = MemoryBudget(3)
    first = RowStore[EpisodeRow](budget)  # pickled past the budget
    second = RowStore[EpisodeRow](budget, encode_row, decode_row)  # one budget shared by both
    for store in (first, second):
        for row in rows:
            store.append(row)
    assert (len(first), first.spilled, second.spilled) == (len(rows), len(rows) - 3, len(rows))
    assert list(first) == rows == list(second)
    # passes may overlap (the episode browser reads rows while it walks them)
    assert [(a.key, b.key) for a, b in zip(first, second, strict=True)] == [(r.key, r.key) for r in rows]
    assert [a == b for a in first for b in first if a.key == b.key] == [True] * len(rows)
    first.close()
    with pytest.raises(RuntimeError, match="closed"):  # never fewer rows than were put in
        list(first)


def test_a_report_past_the_memory_budget_is_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every section read from rows on disk gives the numbers it gives from rows in memory."""
    runs = []
    for agent, condition in (("eager", "original,withheld"), ("shallow", "original,withheld,distractors")):
        out = tmp_path / agent
        args = ["run", "--agent", agent, "--protocol", "V0,V1,V3", "--domain", "customer", "--repeat", "2",
                "--condition", condition, "--out", str(out), "--no-report"]  # fmt: skip
        assert CliRunner().invoke(app, args).exit_code == 0
        runs.append(out)
    report(runs, tmp_path / "memory")
    monkeypatch.setattr(rowstore, "ROWS_IN_MEMORY", 5)  # past the first 5 rows, every row waits on disk
    report(runs, tmp_path / "disk")
    for name in ("report.json", "report.md"):
        assert (tmp_path / "disk" / name).read_text() == (tmp_path / "memory" / name).read_text(), name
    page = (tmp_path / "disk" / "report.html").read_text()
    assert page == (tmp_path / "memory" / "report.html").read_text()


def test_no_room_for_rows_on_disk_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    args = ["run", "--agent", "eager", "--protocol", "V1", "--domain", "research", "--out", str(out), "--no-report"]
    assert CliRunner().invoke(app, args).exit_code == 0

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rowstore, "ROWS_IN_MEMORY", 2)
    monkeypatch.setattr(rowstore.tempfile, "TemporaryFile", full_disk)
    result = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "report")])
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert "No space left on device" in message and "TMPDIR" in message
    assert not (tmp_path / "report").exists()  # nothing half-written
    # the run's closing summary reads its rows the same way: the episodes are stored, the summary says why not
    again = tmp_path / "again"
    result = CliRunner().invoke(app, [*args[:-3], "--out", str(again), "--no-report"])
    assert result.exit_code == 1 and "No space left on device" in " ".join(result.output.split())
    assert len((again / "episodes.jsonl").read_text().splitlines()) == len(
        (out / "episodes.jsonl").read_text().splitlines()
    )


def test_evaluate_past_the_budget_writes_what_it_writes_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`evaluate` re-scores a file without holding it: its table and --out (in the file's order)
    are the same whether its rows stay in memory or wait on disk."""
    out = tmp_path / "run"
    args = ["run", "--agent", "shallow", "--protocol", "V0,V1", "--domain", "smart_home", "--repeat", "2",
            "--out", str(out), "--no-report"]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    path = out / "episodes.jsonl"
    outputs = []
    for budget in (rowstore.ROWS_IN_MEMORY, 3):
        monkeypatch.setattr(rowstore, "ROWS_IN_MEMORY", budget)
        rescored = tmp_path / f"rescored-{budget}.jsonl"
        result = CliRunner().invoke(app, ["evaluate", str(path), "--out", str(rescored)])
        assert result.exit_code == 0, result.output
        outputs.append((result.output, rescored.read_text()))
    assert outputs[0] == outputs[1]
    assert [r.key for _, r in read_numbered(tmp_path / "rescored-3.jsonl")] == [r.key for _, r in read_numbered(path)]
