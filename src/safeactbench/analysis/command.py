"""The `safeactbench report RUN_DIR... --out DIR` entry point (the CLI registers it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .report import build_report, load_cases, load_tasks, write_report
from .runs import ORIGINAL, load_runs


def report(
    run_dirs: list[Path],
    out: Path,
    episodes: list[str] | None = None,
    on_warning: Callable[[str], None] | None = None,
    pairs: str = "harness",
) -> dict[str, Path]:
    """Write report.md, report.html, report.json and figures/*.png for `run_dirs` into `out`.

    `episodes` chooses the illustrative trajectories ("CASE_ID" or "configuration:CASE_ID");
    without it one episode per failure mode is picked. Returns every written path by name
    ("markdown", "html", "data", "figures/<name>.png"). Raises `ReportError` (a ValueError) for
    unusable input: a missing run directory, a malformed episodes file, an unknown episode.
    `on_warning` hears about input the report used with a correction (duplicates, stored verdicts
    that differ from the replay). `pairs`: "harness" compares each model's harnesses (the study's
    T-harness), "all" every pair of configurations."""
    runs = load_runs([Path(p) for p in run_dirs])
    for run in runs:
        for warning in run.warnings:
            if on_warning is not None:
                on_warning(warning)
    # the suite's cases the report reads: those played under an intervention (their affected tools)
    cases = load_cases({r.case_id for run in runs for r in run.records if r.condition != ORIGINAL})
    tasks = load_tasks((r.case_id, r.condition) for run in runs for r in run.records)
    built = build_report(runs, episodes, cases=cases, pairs=pairs, tasks=tasks)
    del runs, cases  # the report holds what it shows: rendering it has the records' memory
    return write_report(built, Path(out))
