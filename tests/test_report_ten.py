"""A report at the study's size: ten configurations (eight scripted agents, two of them also run
through Inspect as `safeactbench/<agent>`). Every figure the report draws keeps one colour per
configuration and shows every label whole; the HTML page shows the same colours and groups the
harness pairs by model (in a real browser).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from typer.testing import CliRunner

from safeactbench.analysis import figures
from safeactbench.analysis.command import report
from safeactbench.cli import app
from served import TWO_PER_PROTOCOL
from test_report_browser import CHROMIUM, CHROMIUM_ARGS, require_browser

SCRIPTED = ("reference", "comply", "eager", "shallow", "skeptic", "credulous", "random", "always_block")
SERVED = ("reference", "eager")  # also run through Inspect: two harness pairs


@pytest.fixture(scope="module")
def ten(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ten")
    cases = ["--cases", ",".join(TWO_PER_PROTOCOL), "--no-report"]
    dirs = []
    for agent in SCRIPTED:
        dirs.append(root / agent)
        # `random` plays Legacy only: it is absent from the interactive figures, and nobody's colour shifts
        # and `skeptic` alone plays an intervention: the interventions figures draw it alone, in its colour
        played = ["--protocol", "Legacy", "--no-report"] if agent == "random" else cases
        played = [*played, "--condition", "original,withheld"] if agent == "skeptic" else played
        result = CliRunner().invoke(app, ["run", "--agent", agent, "--out", str(dirs[-1]), *played])
        assert result.exit_code == 0, result.output
    for agent in SERVED:
        dirs.append(root / f"{agent}-inspect")
        args = ["run", "--model", f"safeactbench/{agent}", "--max-concurrency", "10", "--out", str(dirs[-1]), *cases]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    drawn: list[Figure] = []
    real_png = figures.png

    def keep(fig: Figure) -> bytes:  # every figure the report draws, before it becomes a PNG
        drawn.append(fig)
        return real_png(fig)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(figures, "png", keep)
        written = report(dirs, root / "report")
    data = json.loads(written["data"].read_text())
    return {"written": written, "data": data, "figures": drawn}


def whole(text: str) -> str:
    """A wrapped label as one line (wrapping drops the spaces where it breaks)."""
    return text.replace("\n", "").replace(" ", "")


def labelled_colours(fig: Figure) -> list[tuple[str, str]]:
    """(label, colour) of every labelled bar series and line of a figure."""
    out = []
    for ax in fig.axes:
        for container in ax.containers:
            if isinstance(container, BarContainer) and not container.get_label().startswith("_"):
                out.append((container.get_label(), to_hex(container.patches[0].get_facecolor())))
        for line in ax.get_lines():
            if not line.get_label().startswith("_"):
                out.append((line.get_label(), to_hex(line.get_color())))
    return out


def test_ten_configurations_keep_their_colours_and_whole_labels(ten: dict[str, Any]) -> None:
    data = ten["data"]
    labels: list[str] = data["configurations"]
    colours: dict[str, str] = data["colours"]
    assert len(labels) == 10 and len(set(colours.values())) == 10 and set(colours) == set(labels)
    by_whole = {whole(label): label for label in labels}
    seen: dict[str, set[str]] = {}
    for fig in ten["figures"]:
        texts = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        texts += [t.get_text() for ax in fig.axes for t in (*ax.get_yticklabels(), *ax.get_xticklabels())]
        assert not any("…" in text for text in texts), texts  # nothing cut
        for name, colour in labelled_colours(fig):
            if whole(name) in by_whole:
                seen.setdefault(by_whole[whole(name)], set()).add(colour)
    # every configuration drawn somewhere, always in its own colour
    assert set(seen) == set(labels)
    for label, used in seen.items():
        assert used == {colours[label]}, (label, used)
    # the failure-mode figure names every configuration, whole, on its axis
    [modes] = [f for f in ten["figures"] if f.axes and f.axes[0].get_xlabel() == "share of cases (%)"]
    ticks = [whole(t.get_text()) for t in modes.axes[0].get_yticklabels()]
    assert sorted(ticks) == sorted(whole(label) for label in labels)


def test_ten_configurations_in_the_browser(ten: dict[str, Any], tmp_path: Path) -> None:
    sync_playwright = require_browser()
    data = ten["data"]
    html: Path = ten["written"]["html"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(html.resolve().as_uri())
            rows = page.eval_on_selector_all(
                "#main-table tbody tr",
                "rows => rows.map(r => [r.querySelector('th').innerText.trim(),"
                " getComputedStyle(r.querySelector('.swatch')).backgroundColor])",
            )
            shown = {label: colour for label, colour in rows}
            assert set(shown) == set(data["configurations"])  # every label whole in the table
            for label, colour in data["colours"].items():
                red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
                assert shown[label] == f"rgb({red}, {green}, {blue})", label
            pairs = page.eval_on_selector_all(
                "#paired-table tbody tr",
                "rows => rows.map(r => Array.from(r.children).slice(0, 3).map(c => c.innerText.trim()))",
            )
            assert pairs == [
                ["safeactbench/reference", "scripted", "inspect"],
                ["safeactbench/eager", "scripted", "inspect"],
            ]
            table_text = page.eval_on_selector_all("table", "ts => ts.map(t => t.innerText).join('\\n')")
            assert "…" not in table_text
            widths = page.eval_on_selector_all("figure img", "imgs => imgs.map(i => i.naturalWidth)")
            assert widths and all(w > 0 for w in widths)
            page.screenshot(path=str(tmp_path / "ten.png"), full_page=True)
        finally:
            browser.close()
