"""`import safeact-release`: convert the study's public release into a suite directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from .common import check_out_dir, console, fail, import_app, os_reason, progress_bar


@import_app.command("safeact-release")
def import_safeact_release(
    checkout: Annotated[Path, typer.Argument(help="a local checkout of the study's public release (with env/)")],
    out: Annotated[Path, typer.Option(help="the suite directory to write")],
) -> None:
    """Convert the study's public release, case by case, with a fidelity report (docs/import.md)."""
    from ..importers.release_cases import NotImportable
    from ..importers.release_files import ReleaseError
    from ..importers.safeact_release import STATUSES, status_counts, write_import

    check_out_dir("--out", out)
    try:
        with progress_bar() as bar:
            task = bar.add_task("import", total=None)
            report = write_import(checkout, out, lambda n: bar.advance(task, n))
    except (ReleaseError, NotImportable) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # writing the suite directory
        raise fail(f"--out {out}: {os_reason(out, exc)}") from None
    table = Table(title=f"imported into {out}")
    for column in ("protocol", "domain", "exact", "approximated", "not importable"):
        table.add_column(column)
    for row in status_counts(report):
        table.add_row(row["protocol"], row["domain"], *(str(row[s]) for s in STATUSES))
    console.print(table)
    console.print(f"what was approximated, and why a case was not importable: {out / 'IMPORT.md'}")
