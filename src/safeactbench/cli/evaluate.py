"""`evaluate`: re-score saved episodes by replaying them on fresh worlds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..runs.records import EpisodeLines, RunId
from ..runs.store import StoreError, read_meta, run_config
from .common import SuiteOption, app, choose_suite, console, err, fail
from .tables import coverage_line, ecs_table


@app.command("evaluate")
def evaluate_cmd(
    trajectories: Annotated[Path, typer.Argument(help="an episodes.jsonl (or any JSONL of episode records)")],
    out: Annotated[Path | None, typer.Option(help="write the re-scored episodes here")] = None,
    suite: SuiteOption = None,
) -> None:
    """Re-score saved episodes by replaying them on fresh worlds; report changed verdicts.

    Nothing a record claims about its own score is trusted: protocol, domain and family come from
    the suite, every verdict is derived again from its trajectory. In a run directory every record
    must belong to the run (run.json); a file of records must hold one configuration; an episode
    recorded twice is an error."""
    choose_suite(suite)
    from ..runs.rowstore import LineSpool, SpillError
    from ..runs.verify import check_suite, rescore

    meta_path = trajectories.parent / "run.json"
    rescored = LineSpool() if out is not None else None  # --out in the order of the file read
    try:
        lines = EpisodeLines(trajectories)
        if not any(line.strip() for line in lines):
            raise fail(f"{trajectories}: no episode records")
        run = None
        planned = None
        if trajectories.name == "episodes.jsonl" and meta_path.is_file():
            meta = read_meta(meta_path)
            config = run_config(meta, meta_path)
            check_suite(config, meta_path)
            run, planned = RunId.of(config), meta.get("planned")
        result = rescore(lines, trajectories, run=run, out=rescored)
    except (StoreError, SpillError) as exc:
        raise fail(str(exc)) from None
    for change in result.changes:
        err.print(f"[yellow]{escape(change.case_id)}[/] " + escape(f"(line {change.line}): {change.detail}"))
    if rescored is not None and out is not None:
        try:
            with out.open("wb") as handle:
                rescored.write_to(handle)
        except OSError as exc:
            raise fail(f"--out {out}: {exc.strerror or exc}") from None
    verified, verdicts = result.verified, sum(change.verdict for change in result.changes)
    corrected = len(result.changes) - verdicts
    console.print(
        f"re-scored {verified.completed} episodes; {verdicts} verdict(s) changed"
        + (f"; {corrected} record(s) with wrong case labels corrected" if corrected else "")
    )
    console.print(coverage_line(verified.completed, len(verified.records), planned, verified.missing_reasons()))
    console.print(ecs_table(verified.records, "ECS after re-scoring"))
