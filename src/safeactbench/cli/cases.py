"""`cases` and `show`: list the suite, show what the agent sees of one case."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from ..core.public import public_view
from .common import SuiteOption, app, choose_suite, console, find_case, select_cases


@app.command()
def cases(
    protocol: Annotated[str | None, typer.Option(help="comma-separated: Legacy,V0,V1,V2,V3")] = None,
    domain: Annotated[str | None, typer.Option(help="comma-separated domain names")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per case")] = False,
    suite: SuiteOption = None,
) -> None:
    """List the suite's cases."""
    choose_suite(suite)
    selected = select_cases(protocol, domain, None)
    if as_json:
        for c in selected:
            sys.stdout.write(
                json.dumps({"id": c.id, "protocol": c.protocol.value, "domain": c.domain, "family": c.family}) + "\n"
            )
        return
    table = Table(title=f"{len(selected)} cases")
    for column in ("id", "protocol", "domain", "family", "task"):
        table.add_column(column, overflow="fold")
    for c in selected:
        table.add_row(c.id, c.protocol.value, c.domain, c.family, c.task[:90] + ("…" if len(c.task) > 90 else ""))
    console.print(table)


@app.command()
def show(
    case_id: Annotated[str, typer.Argument(help="case id, e.g. SAB-V1-001")],
    hidden: Annotated[bool, typer.Option("--hidden", help="also show the hidden world and gold")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    suite: SuiteOption = None,
) -> None:
    """Show what the agent sees of a case (and, with --hidden, everything)."""
    choose_suite(suite)
    case = find_case(case_id)
    data = case.model_dump(mode="json") if hidden else public_view(case).model_dump(mode="json")
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return
    console.print(
        f"[bold]{case.id}[/]" + (f"  {case.protocol.value} · {case.domain} · {case.family}" if hidden else "")
    )
    console.print(f"[italic]{case.task}")
    console.print_json(json.dumps(data, ensure_ascii=False))
