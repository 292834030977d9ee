"""Rendering a `Report`: Markdown and one self-contained HTML page through the jinja2 templates next
to this module, and `write_report`, which writes them with report.json and figures/*.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .structure import Cell, Report, Table

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _json_script(value: Any) -> str:
    """JSON safe to place inside <script type="application/json"> (no '</script>', no '<!--')."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_mark(cell: Cell) -> str:
    text = _md_cell(cell.text)
    if cell.mark == "best":
        return f"**{text}**"
    if cell.mark == "second":
        return f"<ins>{text}</ins>"
    return text


def _md_table(table: Table) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in table.columns) + " |"
    align = "|" + "|".join(":---" if i in table.text_columns else "---:" for i in range(len(table.columns))) + "|"
    rows = ["| " + " | ".join(_md_mark(c) for c in row) + " |" for row in table.rows]
    return "\n".join([head, align, *rows])


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = _md_mark
    env.filters["md_table"] = _md_table
    return env


def render_markdown(report: Report) -> str:
    return _environment().get_template("report.md.j2").render(report=report)


def render_html(report: Report) -> str:
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            report=report,
            report_data=_json_script(report.data),
            episode_data=_json_script(report.browser),
        )
    )


def write_report(report: Report, out: Path) -> dict[str, Path]:
    """report.md, report.html, report.json and figures/*.png under `out`; returns every path written."""
    out.mkdir(parents=True, exist_ok=True)
    figures_dir = out / "figures"
    figures_dir.mkdir(exist_ok=True)
    written: dict[str, Path] = {}
    for figure in report.figures:
        path = figures_dir / f"{figure.name}.png"
        path.write_bytes(figure.png)
        written[f"figures/{figure.name}.png"] = path
    paths = {"markdown": out / "report.md", "html": out / "report.html", "data": out / "report.json"}
    paths["markdown"].write_text(render_markdown(report), encoding="utf-8")
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["data"].write_text(
        json.dumps(report.data, indent=1, ensure_ascii=False, default=_json_default) + "\n", encoding="utf-8"
    )
    return {**paths, **written}
