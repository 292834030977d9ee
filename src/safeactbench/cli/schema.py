"""`schema`: export the JSON Schemas of the records SafeActBench reads and writes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import app, console, fail, os_reason


@app.command()
def schema(
    out: Annotated[Path, typer.Option(help="directory for the *.schema.json files")] = Path("docs/schema"),
) -> None:
    """Export the JSON Schemas of cases, trajectories, verdicts and episode records."""
    from ..runs.schema import write_schemas

    try:
        written = write_schemas(out)
    except OSError as exc:
        raise fail(f"--out {out}: {os_reason(out, exc)}") from None
    for path in written:
        console.print(f"wrote {path}")
