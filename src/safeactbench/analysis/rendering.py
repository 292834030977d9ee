"""Rendering a `Report`: Markdown and one self-contained HTML page through the jinja2 templates next
to this module, and `write_report`, which writes them with report.json and figures/*.png.

Every string in a `Report` is plain text, and much of it is agent-controlled (tool names, arguments,
observations, labels from run.json). Each renderer escapes it for the context it lands in:

- HTML: jinja2 autoescaping; the embedded JSON goes through `_json_script`.
- Markdown: every `{{ ... }}` is escaped by default (`_md_finalize` -> `md_text`: one line, Markdown
  and HTML metacharacters neutralised), so a table cell, heading, paragraph, caption or alt text
  cannot open a new block, a link, an HTML tag or a code span. Filters that emit Markdown themselves
  return `MdSafe`, which is printed as is: `md_table` (cells escaped, pipes too), `md_code` (a fence
  longer than any backtick run in the content, so the content can never close it) and `md_url`.

Files are replaced atomically (`_write_atomic`): readers see the previous file or the new one, never
a half-written one, and a failure leaves no temporary file behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .runs import ReportError
from .structure import Cell, EpisodeBrowser, Report, Table

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _json_script(value: Any) -> str:
    """JSON safe to place inside <script type="application/json"> (no '</script>', no '<!--')."""
    return _escape_script(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default))


def _escape_script(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# ---------------------------------------------------------------------------- Markdown escaping


class MdSafe(str):
    """Markdown already escaped for its context: the Markdown template prints it unchanged."""

    __slots__ = ()


# every line ending CommonMark knows (\r, \n) and the other Unicode line separators
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
# inline metacharacters (CommonMark and GFM: code, emphasis, links, tables, strikethrough, math,
# heading closers), runs of '_', and the HTML ones, which become entities
_SPECIAL = re.compile(r"_+|[\\`*\[\]|~#$&<>]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# what would open a block at the start of a line: a list item or thematic break, an ordered item
_BLOCK_START = re.compile(r"^([-+])(?=[\s\-+]|$)|^(\d{1,9})([.)])(?=\s|$)")


def _escape_special(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    token = match.group()
    if token[0] != "_":
        return _ENTITIES.get(token) or "\\" + token
    # '_' between letters or digits can neither open nor close emphasis: keep snake_case readable
    inside_word = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return token if inside_word else "\\_" * len(token)


def md_text(text: str) -> str:
    """Plain text as Markdown inline content on one line, shown literally wherever it is placed
    (paragraph, heading, table cell, emphasis, alt text): no block, link, code span or HTML survives."""
    flat = _LINE_BREAKS.sub(" ", text).strip()  # stripped: four leading spaces would make code
    escaped = _SPECIAL.sub(_escape_special, flat)
    return _BLOCK_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", escaped, count=1)


def md_code(text: str) -> MdSafe:
    """A fenced code block whose fence is longer than any backtick run in `text` (CommonMark), so
    no line of `text` can close it."""
    body = text.replace("\r\n", "\n").replace("\r", "\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return MdSafe(f"{fence}text\n{body}\n{fence}")


def md_url(path: str) -> MdSafe:
    """A relative link destination: percent-encoded, so no space, bracket or parenthesis ends it."""
    return MdSafe(quote(path))


def _md_mark(cell: Cell) -> str:
    text = md_text(cell.text)
    if not text:
        return text
    if cell.mark == "best":
        return f"**{text}**"
    if cell.mark == "second":
        return f"<ins>{text}</ins>"
    return text


def md_table(table: Table) -> MdSafe:
    """A GFM table; every cell is escaped text (`|` included), on one line."""
    head = "| " + " | ".join(md_text(c) for c in table.columns) + " |"
    align = "|" + "|".join(":---" if i in table.text_columns else "---:" for i in range(len(table.columns))) + "|"
    rows = ["| " + " | ".join(_md_mark(c) for c in row) + " |" for row in table.rows]
    return MdSafe("\n".join([head, align, *rows]))


def _md_finalize(value: Any) -> str:
    """Every `{{ ... }}` of the Markdown template: escaped text unless already Markdown."""
    return value if isinstance(value, MdSafe) else md_text(str(value))


# ---------------------------------------------------------------------------- rendering


@cache
def _environment(markdown: bool) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=not markdown,
        finalize=_md_finalize if markdown else None,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    if markdown:
        env.filters.update(md_table=md_table, md_code=md_code, md_url=md_url)
    return env


def render_markdown(report: Report) -> str:
    return _environment(True).get_template("report.md.j2").render(report=report)


def render_html(report: Report) -> str:
    return "".join(render_html_chunks(report))


EPISODE_DATA = "\x00episode-data\x00"  # where the template's output takes the streamed episode data


def render_html_chunks(report: Report) -> Iterator[str]:
    """report.html in pieces: the episode browser's data (the bulk of a large report) is encoded
    as it is written, never held as one string."""
    template = _environment(False).get_template("report.html.j2")
    for chunk in template.generate(report=report, report_data=_json_script(report.data), episode_data=EPISODE_DATA):
        if EPISODE_DATA not in chunk:
            yield chunk
            continue
        before, after = chunk.split(EPISODE_DATA, 1)
        yield before
        yield from _browser_chunks(report.browser)
        yield after


def _browser_chunks(browser: EpisodeBrowser) -> Iterator[str]:
    """The browser's data as one JSON object, its episodes encoded as they are read."""
    head = {"configurations": browser.configurations, "tasks": browser.tasks}
    yield from _json_script_chunks(head, close=False)
    yield ',"episodes":['
    for n, episode in enumerate(browser.episodes()):
        if n:
            yield ","
        yield from _json_script_chunks(episode)
    yield "]}"


def _json_script_chunks(value: Any, size: int = 1 << 16, close: bool = True) -> Iterator[str]:
    """`_json_script(value)` in pieces of about `size` characters (the escapes replace single
    characters, so a piece boundary never splits one); `close=False` leaves an object open, for
    more members to follow."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_json_default)
    buffer: list[str] = []
    length = 0
    pieces = encoder.iterencode(value)
    if not close:
        text = "".join(pieces)
        assert text.endswith("}")
        pieces = iter([text[:-1]])
    for piece in pieces:
        buffer.append(piece)
        length += len(piece)
        if length >= size:
            yield _escape_script("".join(buffer))
            buffer, length = [], 0
    if buffer:
        yield _escape_script("".join(buffer))


# ---------------------------------------------------------------------------- writing


def write_report(report: Report, out: Path) -> dict[str, Path]:
    """report.md, report.html, report.json and figures/*.png under `out`; returns every path written.

    Everything is rendered before anything is replaced (report.html streamed into its temporary
    file first); then each file is replaced atomically, figures first and report.html last. An
    unusable `out` or a failed write is a `ReportError` naming the path and the reason."""
    files = _rendered(report)
    created = [d for d in (out, out / "figures") if not d.exists()]
    _make_directory(out)
    _make_directory(out / "figures")
    html = out / "report.html"
    try:
        html_tmp = _write_temporary(html, (chunk.encode("utf-8") for chunk in render_html_chunks(report)))
    except BaseException as exc:
        for directory in reversed(created):  # a failed render leaves nothing behind
            with contextlib.suppress(OSError):
                directory.rmdir()
        if isinstance(exc, OSError):
            raise ReportError(f"{html}: cannot write the report ({_reason(exc)})") from None
        raise
    written: dict[str, Path] = {}
    try:
        for key, name, content in files:
            path = out / name
            try:
                _write_atomic(path, content)
            except OSError as exc:
                raise ReportError(f"{path}: cannot write the report ({_reason(exc)})") from None
            written[key] = path
        try:
            os.replace(html_tmp, html)
        except OSError as exc:
            raise ReportError(f"{html}: cannot write the report ({_reason(exc)})") from None
    finally:
        html_tmp.unlink(missing_ok=True)
    written["html"] = html
    return written


def _rendered(report: Report) -> list[tuple[str, str, bytes]]:
    """(key, path under the report directory, content) of every file, in writing order."""
    figures = [(f"figures/{f.name}.png", f"figures/{f.name}.png", f.png) for f in report.figures]
    data = json.dumps(report.data, indent=1, ensure_ascii=False, default=_json_default) + "\n"
    return [
        *figures,
        ("data", "report.json", data.encode("utf-8")),
        ("markdown", "report.md", render_markdown(report).encode("utf-8")),
    ]


def _make_directory(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise ReportError(f"{path}: exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{path}: cannot create the report directory ({_reason(exc)})") from None


def _write_atomic(path: Path, content: bytes) -> None:
    """Write a temporary file next to `path`, sync it and rename it over `path`; on any failure
    (an interrupt included) remove the temporary file and re-raise."""
    tmp = _write_temporary(path, [content])
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_temporary(path: Path, chunks: Iterable[bytes]) -> Path:
    """`chunks` written and synced to a new temporary file next to `path`, returned for the caller
    to rename; on any failure (in producing the chunks too, an interrupt included) it is removed."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: never write through someone else's file or link; 0o666 minus the umask, as open() does
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with open(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
