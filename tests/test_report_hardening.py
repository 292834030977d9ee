"""The report against hostile input and a hostile file system: agent-controlled strings (tool names,
arguments, labels from run.json) cannot break report.md's structure or inject HTML into either
report; report files are replaced atomically; an unusable --out is one clear error."""

from __future__ import annotations

import errno
import html as html_lib
import itertools
import json
import os
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from safeactbench.analysis import ReportError, rendering
from safeactbench.analysis.command import report
from safeactbench.analysis.runs import load_runs
from safeactbench.analysis.structure import Block, Cell, Report, Section, Table
from safeactbench.core.model import Protocol
from safeactbench.core.render import render_episode
from safeactbench.suite.data import load_suite

INJECTED = "INJECTED"
IMG = "<img src=x onerror=alert(1)>"
# each one tries to leave its context: a code fence, a table cell, a paragraph, a heading
HOSTILE_TOOL = f"x\n```\n{IMG}\n# {INJECTED} heading\n``````````\n</pre><script>alert(2)</script>"
HOSTILE_KEY = f"k|\n\n<b>{INJECTED}</b>\n~~~\n"
HOSTILE_LABEL = f"evil | {IMG}\n\n# {INJECTED} label\n[link](javascript:alert(3)) *em* _u_ `code`"
HOSTILE_VERSION = f"1.0\n\n---\n<div>{INJECTED}</div>\n    indented\n1. list\n> quote"
CALLS = [
    [HOSTILE_TOOL, {HOSTILE_KEY: IMG, "v": HOSTILE_TOOL}],
    [f"```` {IMG}", {"```": f"```\n{IMG}"}],
    ["submit", {"outcome": "DONE", "reason": HOSTILE_TOOL}],
]
# a CLI agent (as `run --harness-cmd` drives Claude Code or Codex) that makes the calls above over MCP
AGENT = """
import json, sys
from pathlib import Path
import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def play() -> None:
    [server] = json.loads(Path(sys.argv[1]).read_text())["mcpServers"].values()
    async with streamable_http_client(server["url"]) as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in json.loads(Path(sys.argv[2]).read_text()):
            await session.call_tool(name, arguments)

anyio.run(play)
"""
ENV = {**os.environ, "COLUMNS": "500", "NO_COLOR": "1"}


def cli(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "safeactbench", *args], capture_output=True, text=True, env=ENV, timeout=300
    )
    assert not check or result.returncode == 0, result.stdout + result.stderr
    return result


def v1_cases(n: int) -> list[str]:
    return [c.id for c in load_suite() if c.protocol == Protocol.V1][:n]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of a CLI agent labelled with hostile text that calls hostile tools; run.json's suite
    version edited to hostile text too."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "agent.py").write_text(AGENT, encoding="utf-8")
    (root / "calls.json").write_text(json.dumps(CALLS), encoding="utf-8")
    command = " ".join(shlex.quote(str(p)) for p in (sys.executable, root / "agent.py")) + " {mcp_config} "
    command += shlex.quote(str(root / "calls.json"))
    run = root / "run"
    cases = ",".join(v1_cases(2))
    cli(
        "run",
        "--harness-cmd",
        command,
        "--label",
        HOSTILE_LABEL,
        "--cases",
        cases,
        "--out",
        str(run),
        "--no-report",
        "--no-sandbox",  # the agent script runs on this virtualenv, which the sandbox hides
        check=True,
    )
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    (run / "run.json").write_text(json.dumps({**meta, "suite_version": HOSTILE_VERSION}), encoding="utf-8")
    return run


@pytest.fixture(scope="module")
def eager_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eager") / "run"
    cli("run", "--agent", "eager", "--protocol", "V1", "--limit", "5", "--out", str(out), "--no-report", check=True)
    return out


@pytest.fixture(scope="module")
def hostile_report(hostile_run: Path, eager_run: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return report([hostile_run, eager_run], tmp_path_factory.mktemp("report"), episodes=v1_cases(2))


# ---------------------------------------------------------------------------- Markdown


def walk(tokens: list[Token]) -> list[Token]:
    return [t for token in tokens for t in [token, *walk(token.children or [])]]


def parse(md: str) -> list[Token]:
    return walk(MarkdownIt("commonmark").enable("table").parse(md))


def headings(tokens: list[Token]) -> list[str]:
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_hostile_tool_calls_stay_inside_their_code_blocks(hostile_run: Path, hostile_report: dict[str, Path]) -> None:
    md = hostile_report["markdown"].read_text(encoding="utf-8")
    tokens = parse(md)
    fences = [t.content for t in tokens if t.type in ("fence", "code_block")]
    (run,) = load_runs([hostile_run])
    chosen = sorted((r for r in run.records if r.trajectory and r.verdict), key=lambda r: r.case_id)
    stored = [s.trajectory for s in run.whole(chosen)]  # the report keeps no step text: it reads it back
    # exactly one code block per chosen episode, holding its whole text: nothing closed it early
    assert fences == [render_episode(t, r.verdict) + "\n" for t, r in zip(stored, chosen, strict=True)]  # type: ignore[arg-type]
    assert all(f"[0] {HOSTILE_TOOL}(" in f for f in fences)
    assert not [h for h in headings(tokens) if INJECTED in h]
    assert injected(MarkdownIt("commonmark").enable("table").render(md)) == []


def test_hostile_labels_are_plain_text_in_markdown_and_html(hostile_report: dict[str, Path]) -> None:
    md = hostile_report["markdown"].read_text(encoding="utf-8")
    tokens = parse(md)
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    assert injected(rendered) == []
    # the only raw HTML is the report's own 'second best' mark; no injected link, list, rule, quote
    assert {t.content for t in tokens if t.type.startswith("html_")} <= {"<ins>", "</ins>"}
    kinds = {t.type for t in tokens}
    assert not kinds & {"link_open", "bullet_list_open", "ordered_list_open", "hr", "blockquote_open", "code_block"}
    assert all(str(t.attrGet("src")).startswith("figures/") for t in tokens if t.type == "image")
    titles = headings(tokens)
    assert titles[0] == "SafeActBench report" and titles.count("SafeActBench report") == 1
    assert not [h for h in titles if INJECTED in h]
    assert f"evil | {IMG}" in html_lib.unescape(rendered)  # shown, as text
    assert_table_shapes(tokens)
    html = hostile_report["html"].read_text(encoding="utf-8")
    scripts = re.compile(r'<script type="application/json" id="([^"]+)">(.*?)</script>', re.S)
    assert injected(scripts.sub("", html)) == []
    data = {name: json.loads(text) for name, text in scripts.findall(html)}  # intact inside the JSON
    assert any(step.startswith(f"[0] {HOSTILE_TOOL}(") for e in data["episode-data"]["episodes"] for step in e["steps"])


def injected(html: str) -> list[str]:
    """The hostile markup that made it into `html` as markup."""
    raw = [IMG, f"<b>{INJECTED}", f"<div>{INJECTED}", "<script>alert(2)", "</pre><script>"]
    return [r for r in raw if r in html] + [t for t in re.findall(r"<[^>]*>", html) if "onerror" in t]


def assert_table_shapes(tokens: list[Token]) -> None:
    """Every row of every table has as many cells as its header: no cell split or merged."""
    widths: list[int] = []
    for t in tokens:
        if t.type == "tr_open":
            widths.append(0)
        elif t.type in ("th_open", "td_open"):
            widths[-1] += 1
        elif t.type == "table_close":
            assert len(set(widths)) == 1, widths
            widths = []


CONTEXTS = {  # where the Markdown template places text, and the HTML it must render to
    "paragraph": ("{}", "<p>{}</p>"),
    "heading": ("## {}", "<h2>{}</h2>"),
    "bold": ("**{}**", "<p><strong>{}</strong></p>"),
    "caption": ("*{}*", "<p><em>{}</em></p>"),
    "alt text": ("![{}](f.png)", '<p><img src="f.png" alt="{}" /></p>'),
}
TEXTS = [
    *(HOSTILE_TOOL, HOSTILE_KEY, HOSTILE_LABEL, HOSTILE_VERSION),
    *("- item", "+ item", "1) item", "***", "===", "[a]: /url", "[^1]: note", "<https://x.y>"),
    *("&lt;b&gt; &amp; &#60;", "a\\", "~~gone~~ $x$", "x_y _em_ a__b"),
]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("text", TEXTS, ids=[f"text{i}" for i in range(len(TEXTS))])
def test_escaped_text_is_literal_in_every_context(text: str, context: str) -> None:
    template, expected = CONTEXTS[context]
    shown = re.sub(r"[\r\n]+", " ", text).strip()  # one line: line breaks are spaces
    rendered = (
        MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(template.format(rendering.md_text(text)))
    )
    escape = html_lib.escape(shown, quote=context == "alt text")
    assert rendered == expected.format(escape) + "\n"


def test_fence_outgrows_any_backtick_run() -> None:
    text = f"a\n`````````````\n{IMG}\n```\n"
    section = Section("s", "S", blocks=[Block("b", text)], tables=[Table("t", "t", ["a|b"], [[Cell(HOSTILE_TOOL)]])])
    tokens = parse(rendering.render_markdown(Report("T", "t", [section], {}, {})))
    assert [f.content for f in tokens if f.type == "fence"] == [text + "\n"]
    assert_table_shapes(tokens)


# ---------------------------------------------------------------------------- atomic writes


def leftovers(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    ("failure", "expected"),
    [(OSError(errno.ENOSPC, "No space left on device"), ReportError), (KeyboardInterrupt(), KeyboardInterrupt)],
    ids=["disk-full", "killed"],
)
def test_failed_replace_keeps_the_previous_report(
    eager_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException, expected: type
) -> None:
    out = tmp_path / "report"
    first = report([eager_run], out)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(first["html"].stat().st_mode) == 0o666 & ~umask  # as a plain write leaves it
    before = first["html"].read_bytes()
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == "report.html":
            raise failure
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(expected) as info:
        report([eager_run], out, episodes=[first_case(eager_run)])  # a different report
    assert first["html"].read_bytes() == before
    assert leftovers(out) == []
    if expected is ReportError:
        assert str(first["html"]) in str(info.value) and "No space left on device" in str(info.value)


def first_case(run: Path) -> str:
    return min(r.case_id for r in load_runs([run])[0].records)


def test_a_failed_render_writes_nothing(eager_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report"
    first = report([eager_run], out)
    before = {p: p.read_bytes() for p in first.values()}

    real = rendering.render_html_chunks

    def broken(report_: object) -> Iterator[str]:
        yield from itertools.islice(real(report_), 3)  # fails midway through report.html
        raise RuntimeError("render failed")

    monkeypatch.setattr(rendering, "render_html_chunks", broken)
    with pytest.raises(RuntimeError, match="render failed"):
        report([eager_run], out, episodes=[first_case(eager_run)])  # a different report.md
    assert {p: p.read_bytes() for p in first.values()} == before
    assert leftovers(out) == []
    fresh = tmp_path / "fresh"
    with pytest.raises(RuntimeError, match="render failed"):
        report([eager_run], fresh)
    assert not fresh.exists()  # nothing left behind, not even the directories


# ---------------------------------------------------------------------------- bad --out


def out_is_a_file(tmp: Path) -> tuple[Path, Path]:
    (tmp / "report").write_text("a file\n")
    return tmp / "report", tmp / "report"


def out_under_a_file(tmp: Path) -> tuple[Path, Path]:
    (tmp / "file").write_text("a file\n")
    return tmp / "file" / "report", tmp / "file" / "report"


def figures_is_a_file(tmp: Path) -> tuple[Path, Path]:
    (tmp / "report").mkdir()
    (tmp / "report" / "figures").write_text("a file\n")
    return tmp / "report", tmp / "report" / "figures"


def html_is_a_directory(tmp: Path) -> tuple[Path, Path]:
    (tmp / "report" / "report.html").mkdir(parents=True)
    return tmp / "report", tmp / "report" / "report.html"


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (out_is_a_file, "not a directory"),
        (out_under_a_file, "Not a directory"),
        (figures_is_a_file, "not a directory"),
        (html_is_a_directory, "Is a directory"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_unusable_out_is_one_error_line(
    eager_run: Path, tmp_path: Path, setup: Callable[[Path], tuple[Path, Path]], reason: str
) -> None:
    out, named = setup(tmp_path)
    result = cli("report", str(eager_run), "--out", str(out))
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert str(named) in errors[0] and reason in errors[0], errors[0]
