"""report.html in a real browser: Debian's headless Chromium driven by playwright (never
`playwright install`). Filters the episode list, opens one episode, checks its steps and findings,
and saves screenshots to the test's tmp dir.

Without /usr/bin/chromium it fails in CI (which installs it, `.ci/run`) and is skipped, with the
install command as the reason, on a developer machine; SAFEACTBENCH_SKIP_BROWSER=1 skips it anywhere.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from safeactbench.analysis.command import report
from safeactbench.cli import app
from safeactbench.suite.catalog import get_case

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SKIP_VARIABLE = "SAFEACTBENCH_SKIP_BROWSER"


def require_browser() -> Any:
    """The playwright sync API; without a browser, a failure in CI and a skip that says why elsewhere."""
    problem = None
    if not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`"
    else:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            problem = "the `playwright` package is missing: `pip install playwright` (do not run `playwright install`)"
    if problem:
        if os.environ.get(SKIP_VARIABLE) == "1" or not os.environ.get("CI"):
            pytest.skip(f"browser test not run: {problem}")
        pytest.fail(f"{problem}; or set {SKIP_VARIABLE}=1 to skip the browser test", pytrace=False)
    return sync_playwright


@pytest.fixture(scope="module")
def report_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    for agent in ("reference", "eager"):
        result = CliRunner().invoke(app, ["run", "--agent", agent, "--protocol", "V0,V1", "--out", str(root / agent)])
        assert result.exit_code == 0, result.output
    return report([root / "reference", root / "eager"], root / "report")["html"]


def episodes_of(html: Path) -> dict[str, Any]:
    text = html.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="episode-data">(.*?)</script>', text, re.S)
    assert match
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def test_episode_browser_filters_and_shows_findings(report_html: Path, tmp_path: Path) -> None:
    sync_playwright = require_browser()
    data = episodes_of(report_html)
    configs: list[str] = data["configurations"]
    episodes: list[dict[str, Any]] = data["episodes"]
    eager = configs.index("eager")
    eager_v1 = [e for e in episodes if e["protocol"] == "V1" and e["config"] == eager]
    outcome = eager_v1[0]["outcome"]
    wanted = [e for e in eager_v1 if e["outcome"] == outcome]

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on(
                "request",
                lambda req: None if req.url.startswith(("file:", "data:")) else requests.append(req.url),
            )
            page.goto(report_html.resolve().as_uri())
            page.wait_for_selector("[data-testid=episode-item]")
            count = page.locator("[data-testid=episode-count]")
            assert count.get_attribute("data-count") == str(len(episodes))

            # every section rendered, every figure decoded
            for section in ("main", "failure-modes", "evidence", "paired", "browser"):
                assert page.locator(f"[data-testid=section-{section}]").is_visible()
            widths = page.eval_on_selector_all("figure img", "imgs => imgs.map(i => i.naturalWidth)")
            assert widths and all(w > 0 for w in widths)
            assert page.locator("#main-table strong").count() > 0  # best values marked

            # filter: protocol, configuration, outcome
            page.select_option("[data-testid=filter-protocol]", "V1")
            page.select_option("[data-testid=filter-config]", label="eager")
            assert count.get_attribute("data-count") == str(len(eager_v1))
            page.select_option("[data-testid=filter-outcome]", outcome)
            assert count.get_attribute("data-count") == str(len(wanted))
            items = page.locator("[data-testid=episode-item]")
            assert items.count() == len(wanted)
            for attribute, value in (("data-protocol", "V1"), ("data-config", "eager"), ("data-outcome", outcome)):
                values = items.evaluate_all(f"els => els.map(e => e.getAttribute('{attribute}'))")
                assert set(values) == {value}

            # open one episode: its steps and findings are shown
            first = items.first
            case_id = first.get_attribute("data-case")
            chosen = next(e for e in wanted if e["case"] == case_id)
            first.locator("button").click()
            detail = page.locator("[data-testid=episode-detail]")
            assert case_id in page.locator("[data-testid=episode-title]").inner_text()
            assert page.locator("[data-testid=episode-step]").count() == len(chosen["steps"]) > 0
            findings = page.locator("[data-testid=episode-findings]").inner_text()
            assert findings.startswith("EVALUATOR FINDINGS")
            assert f"outcome={outcome}" in findings
            assert findings.splitlines() == chosen["findings"]
            assert detail.get_attribute("data-episode-id") == chosen["id"]
            # the task text the agent read
            task = page.locator("[data-testid=episode-task]").inner_text()
            assert task == get_case(case_id, chosen["condition"]).task

            # filter by failure mode as well
            mode = chosen["mode"]
            page.select_option("[data-testid=filter-mode]", mode)
            assert count.get_attribute("data-count") == str(sum(e["mode"] == mode for e in wanted))
            page.select_option("[data-testid=filter-mode]", "")

            # a domain filter that matches nothing empties the list; 'all' brings it back
            page.fill("[data-testid=filter-case]", "NO-SUCH-CASE")
            assert count.get_attribute("data-count") == "0"
            page.fill("[data-testid=filter-case]", "")
            assert count.get_attribute("data-count") == str(len(wanted))

            page.locator("#episode-browser").scroll_into_view_if_needed()
            page.locator("#episode-browser").screenshot(path=str(tmp_path / "episode-browser.png"))
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert not errors, errors
    assert not requests, f"the report fetched {requests}"
    for name in ("episode-browser.png", "report.png"):
        assert (tmp_path / name).stat().st_size > 10_000
