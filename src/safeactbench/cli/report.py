"""`report` and `audit`: the report of run directories, the evaluator's mutation audit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..analysis.runs import PAIR_MODES
from ..suite.catalog import CONDITIONS
from .common import SuiteOption, app, choose_suite, console, fail, split_list, write_report


@app.command("report")
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(help="run directories")],
    out: Annotated[Path, typer.Option(help="report directory")],
    episode: Annotated[
        list[str] | None, typer.Option("--episode", help="illustrate CASE_ID or CONFIG:CASE_ID (repeatable)")
    ] = None,
    pairs: Annotated[
        str,
        typer.Option(
            help="paired comparisons: 'harness' (each model's harnesses against its Inspect run, as the study "
            "pairs them) or 'all' (every pair of configurations, across models too)"
        ),
    ] = "harness",
    suite: SuiteOption = None,
) -> None:
    """Tables, figures, report.md and a self-contained report.html from run directories."""
    choose_suite(suite)
    if pairs not in PAIR_MODES:
        raise fail(f"--pairs: unknown {pairs!r}; choose from {list(PAIR_MODES)}")
    paths = write_report(run_dirs, out, episode, pairs)
    console.print(f"wrote {paths['markdown']} and {paths['html']}")


@app.command()
def audit(
    sample: Annotated[int | None, typer.Option(min=1, help="audit a seeded sample of N cases (default: all)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="also write the report (Markdown, or JSON with --json)")] = None,
    conditions: Annotated[
        str, typer.Option(help="also audit these variants of every case that takes them, e.g. withheld,contradicted")
    ] = "",
    suite: SuiteOption = None,
) -> None:
    """Mutation audit of the evaluator: false acceptances and rejections per operator and protocol."""
    choose_suite(suite)
    from ..audit import audit_command

    variants = [c for c in split_list(conditions) or [] if c != "original"]
    unknown = set(variants) - set(CONDITIONS)
    if unknown:
        raise fail(f"--conditions: unknown {sorted(unknown)}; available: {list(CONDITIONS)}")
    raise typer.Exit(audit_command(sample, as_json, out, variants))
