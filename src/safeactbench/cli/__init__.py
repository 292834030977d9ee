"""The `safeactbench` command line: one module per command group, each thin (parse the arguments,
call the library, render with rich).

`common` holds the Typer apps and what every command shares; `cases`, `run` (with `run_setup`
and `play`), `evaluate`, `suite`, `import_release`, `report`, `serve` and `schema` register their
commands on it when this package is imported. The top layer: it may import every other package,
and nothing imports it.
"""

from __future__ import annotations

from rich.markup import escape

from ..runs.store import StoreError
from ..suite.data import CaseFileError
from .common import app, err

# the command modules register on `app` as they are imported, in the order `--help` lists them
# isort: off
from . import cases, run, evaluate, suite, import_release, report, serve, schema  # noqa: F401
# isort: on


def main() -> None:  # pragma: no cover - console entry point
    try:
        app()
    except (CaseFileError, StoreError) as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        raise SystemExit(2) from None


__all__ = ["app", "main"]
