"""Shared pieces of every command: the Typer apps, the consoles, errors, the --suite option, case
selection, progress bars."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..core.model import Case
from ..suite.catalog import use_suite
from ..suite.data import CaseFileError, load_suite

HELP = "The SafeActBench command line: list and show cases, run agents, re-score, validate, report, audit, serve."
app = typer.Typer(add_completion=False, no_args_is_help=True, help=HELP)
suite_app = typer.Typer(no_args_is_help=True, help="Start, build and check a suite: yours or the published one.")
app.add_typer(suite_app, name="suite")
import_app = typer.Typer(
    no_args_is_help=True, help="Convert another benchmark's published cases into a suite directory."
)
app.add_typer(import_app, name="import")
console = Console()
err = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(code)


SuiteOption = Annotated[
    Path | None,
    typer.Option(
        "--suite",
        help="a suite directory (cases.jsonl, tools.json, manifest.json, as `suite build --out DIR` writes it); "
        "default: $SAFEACTBENCH_SUITE, else the packaged suite",
    ),
]


def choose_suite(suite: Path | None) -> None:
    """`--suite DIR`: play that suite here and in every process this command starts."""
    if suite is None:
        return
    try:
        use_suite(suite)
    except CaseFileError as exc:
        raise fail(f"--suite: {exc}") from None


def split_list(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def select_cases(protocol: str | None, domain: str | None, case_ids: str | None) -> list[Case]:
    """The suite filtered by comma-separated protocols, domains and case ids; unknown names are errors."""
    suite = list(load_suite())
    filters: list[tuple[str, str | None, Callable[[Case], str]]] = [
        ("--protocol", protocol, lambda c: c.protocol.value),
        ("--domain", domain, lambda c: c.domain),
        ("--cases", case_ids, lambda c: c.id),
    ]
    cases = suite
    for option, value, key in filters:
        if value is None:
            continue
        wanted = split_list(value)
        if not wanted:
            raise fail(f"{option}: no values in {value!r}")
        known = {key(c) for c in suite}
        unknown = set(wanted) - known
        if unknown:
            raise fail(f"{option}: unknown {sorted(unknown)}; choose from {sorted(known)[:12]}")
        cases = [c for c in cases if key(c) in wanted]
    return cases


def find_case(case_id: str) -> Case:
    for case in load_suite():
        if case.id == case_id:
            return case
    raise fail(f"no case {case_id!r} (see `safeactbench cases`)")


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=False,
    )


STORED_SO_FAR = "the episodes finished so far are stored; fix this and rerun with --resume"


def check_out_dir(option: str, directory: Path, given: Path | None = None) -> None:
    """Fail before any work, naming the option and the path `given` to it (default `directory`),
    when `directory` cannot be made a directory to write into: it, or the nearest of its parents
    that exists, is not a directory."""
    shown = given or directory
    for path in (directory, *directory.parents):
        if path.exists():
            if not path.is_dir():
                what = "exists and is not a directory" if path == shown else f"{path} is not a directory"
                raise fail(f"{option} {shown}: {what}")
            return


def os_reason(directory: Path, exc: OSError) -> str:
    """Why a directory option cannot be used, in words (a file in the way is the common case)."""
    if directory.exists() and not directory.is_dir():
        return "exists and is not a directory"
    return str(exc.strerror or exc)


def write_report(
    run_dirs: list[Path], out: Path, episodes: list[str] | None = None, pairs: str = "harness"
) -> dict[str, Path]:
    from ..analysis.command import report
    from ..analysis.runs import ReportError

    def warn(message: str) -> None:
        err.print(f"[yellow]warning:[/] {escape(message)}")

    try:
        return report(run_dirs, out, episodes, on_warning=warn, pairs=pairs)
    except ReportError as exc:
        raise fail(str(exc)) from None
