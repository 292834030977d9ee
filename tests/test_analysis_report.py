"""The report on real runs of reference, eager and skeptic over the whole suite: every section,
every figure, a self-contained HTML page; plus interventions and the static gap on runs derived
from them, chosen trajectories, and input errors."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.analysis import ReportError
from safeactbench.analysis.command import report
from safeactbench.analysis.report import build_report
from safeactbench.analysis.runs import load_runs
from safeactbench.cli import app
from safeactbench.model import Protocol
from safeactbench.store import EpisodeRecord, read_episodes
from safeactbench.suite.data import load_suite

AGENTS = ("reference", "eager", "skeptic")
ALWAYS = ("coverage", "main", "domains", "failure-modes", "evidence", "static-gap", "paired", "repetitions",
          "trajectories", "browser", "methods")  # fmt: skip
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for agent in AGENTS:
        result = CliRunner().invoke(app, ["run", "--agent", agent, "--out", str(root / agent)])
        assert result.exit_code == 0, result.output
        out[agent] = root / agent
    return out


@pytest.fixture(scope="module")
def written(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return report([runs[a] for a in AGENTS], tmp_path_factory.mktemp("report"))


def section_ids(html: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', html)


def embedded(html: str, element_id: str) -> object:
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))


def test_every_section_and_file_is_written(written: dict[str, Path]) -> None:
    for key in ("markdown", "html", "data"):
        assert written[key].is_file() and written[key].stat().st_size > 0
    figures = {k for k in written if k.startswith("figures/")}
    assert figures >= {
        "figures/ecs_by_protocol.png",
        "figures/failure_modes.png",
        "figures/coverage_cdf.png",
        "figures/query_cost_cdf.png",
        "figures/paired_deltas.png",
    }
    for key in figures:
        assert written[key].read_bytes().startswith(PNG)
    html = written["html"].read_text(encoding="utf-8")
    assert section_ids(html) == list(ALWAYS)  # no interventions without conditions
    md = written["markdown"].read_text(encoding="utf-8")
    for title in ("Runs and coverage", "Main results", "ECS by domain", "Failure modes", "Evidence before action",
                  "Static vs interactive gap", "Paired comparisons", "Repetitions", "Illustrative trajectories",
                  "Episode browser", "Methods"):  # fmt: skip
        assert f"\n## {title}\n" in md
    assert "## Interventions" not in md
    for figure in figures:
        assert f"({figure})" in md


def test_html_is_self_contained(written: dict[str, Path]) -> None:
    html = written["html"].read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(http" not in html
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert images and all(src.startswith("data:image/png;base64,") for src in images)
    assert "default-src 'none'" in html  # the page may not fetch anything
    data = embedded(html, "report-data")
    assert isinstance(data, dict) and data["configurations"] == list(AGENTS)
    browser = embedded(html, "episode-data")
    assert isinstance(browser, dict)
    assert len(browser["episodes"]) == 3 * len(load_suite())


def test_main_table_numbers(written: dict[str, Path]) -> None:
    data = json.loads(written["data"].read_text())
    main = data["main"]
    n = len(load_suite())
    assert main["reference"]["ecs"] == {"successes": n, "n": n, "value": 1.0}
    assert main["reference"]["ecs_ci"]["low"] == 1.0
    for agent in ("eager", "skeptic"):
        for protocol in ("V1", "V2", "V3"):
            assert main[agent]["by_protocol"][protocol]["value"] == 0.0
    assert main["eager"]["by_protocol"]["V0"]["value"] == 0.0
    low, high = main["eager"]["ecs_ci"]["low"], main["eager"]["ecs_ci"]["high"]
    assert low <= main["eager"]["ecs"]["value"] <= high
    md = written["markdown"].read_text()
    row = next(line for line in md.splitlines() if line.startswith("| reference |") and "**100.0**" in line)
    assert row.count("**100.0**") == 8  # ECS, P-M, D-M and the five protocols: best everywhere
    evidence = data["evidence"]
    assert evidence["reference"]["PAR"]["value"] == 0.0
    assert evidence["reference"]["investigation_completion"]["value"] == 1.0
    assert evidence["eager"]["PAR"]["value"] == 1.0


def test_paired_comparison_and_failure_modes(written: dict[str, Path]) -> None:
    data = json.loads(written["data"].read_text())
    paired = {(p["a"], p["b"]): p for p in data["paired"]}
    assert set(paired) == {("reference", "eager"), ("reference", "skeptic"), ("eager", "skeptic")}
    ref_eager = paired[("reference", "eager")]
    assert ref_eager["common_cases"] == len(load_suite())
    delta = ref_eager["delta_points"]
    assert delta["low"] > 0 and delta["low"] <= delta["estimate"] <= delta["high"]
    assert ref_eager["investigation_completion"]["a"]["value"] == 1.0
    modes = data["failure_modes"]
    for agent in AGENTS:
        for protocol, shares in modes[agent].items():
            assert sum(s["value"] for s in shares.values()) == pytest.approx(1.0), (agent, protocol)
    assert modes["eager"]["V0"]["acted"]["value"] == 1.0
    assert modes["skeptic"]["V1"]["no_action"]["value"] == 1.0


def test_auto_picked_trajectories_cover_failure_modes(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text()
    section = md.split("## Illustrative trajectories", 1)[1].split("\n## ", 1)[0]
    assert section.count("TRAJECTORY EXCERPT") == section.count("EVALUATOR FINDINGS") >= 4
    for mode in ("— acted", "— early_action", "— no_action", "— wrong_decision"):
        assert mode in section


def test_chosen_episodes_and_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_runs([runs["reference"], runs["eager"]])
    chosen = build_report(loaded, ["SAB-V1-001", "eager:SAB-V0-002"], resamples=200)
    blocks = chosen.section("trajectories").blocks  # type: ignore[union-attr]
    assert [b.title.split(" · ")[:2] for b in blocks] == [["reference", "SAB-V1-001"], ["eager", "SAB-V0-002"]]
    assert "EVALUATOR FINDINGS" in blocks[1].text and "UNEXPECTED_CONSEQUENTIAL_ACTION" in blocks[1].text
    with pytest.raises(ReportError, match="no configuration 'nobody'"):
        build_report(loaded, ["nobody:SAB-V1-001"], resamples=200)
    with pytest.raises(ReportError, match="SAB-V9-999"):
        build_report(loaded, ["SAB-V9-999"], resamples=200)
    with pytest.raises(ReportError, match="not a run directory"):
        report([tmp_path / "missing"], tmp_path / "out")


# ---------------------------------------------------------------------------- derived runs


def derive(src: Path, dst: Path, extra: list[EpisodeRecord]) -> Path:
    shutil.copytree(src, dst)
    with (dst / "episodes.jsonl").open("a", encoding="utf-8") as handle:
        handle.writelines(r.model_dump_json() + "\n" for r in extra)
    return dst


def test_interventions_static_gap_repetitions_and_missing(runs: dict[str, Path], tmp_path: Path) -> None:
    eager = read_episodes(runs["eager"] / "episodes.jsonl")
    v1 = sorted((r for r in eager if r.protocol == Protocol.V1), key=lambda r: r.case_id)
    extra: list[EpisodeRecord] = []
    for i, r in enumerate(v1):
        assert r.verdict is not None
        diagnostics = r.verdict.diagnostics
        if i % 2:  # every other withheld episode does not act
            diagnostics = diagnostics.model_copy(update={"action_attempts": 0, "first_action_step": None})
        verdict = r.verdict.model_copy(update={"diagnostics": diagnostics})
        extra.append(r.model_copy(update={"condition": "withheld", "protocol": Protocol.V0, "verdict": verdict}))
        static_verdict = r.verdict.model_copy(update={"score": 1, "protocol": Protocol.LEGACY, "failure_mode": None})
        extra.append(
            r.model_copy(update={"condition": "static", "protocol": Protocol.LEGACY, "verdict": static_verdict})
        )
    extra.append(
        v1[0].model_copy(
            update={
                "case_id": "SAB-V1-001",
                "condition": "original",
                "repetition": 5,
                "status": "missing",
                "missing_reason": "api_error: 529",
                "verdict": None,
            }
        )
    )
    derived = derive(runs["eager"], tmp_path / "eager-iv", extra)
    again = tmp_path / "eager-again"
    shutil.copytree(runs["eager"], again)  # a second run of the same configuration
    started = time.perf_counter()
    written = report([runs["reference"], derived, again], tmp_path / "report")
    elapsed = time.perf_counter() - started
    html = written["html"].read_text()
    assert "interventions" in section_ids(html)
    assert {"figures/interventions_action.png", "figures/first_action_timing.png"} <= set(written)
    data = json.loads(written["data"].read_text())

    withheld = data["interventions"]["eager"]["withheld"]
    n = len(v1)
    assert withheld["episodes"] == n
    assert withheld["action_probability"]["estimate"] == pytest.approx(((n + 1) // 2) / n)
    reduction = withheld["reduction_vs_original_points"]
    assert reduction["estimate"] == pytest.approx(100 * (n // 2) / n)
    assert reduction["low"] <= reduction["estimate"] <= reduction["high"]
    assert data["interventions"]["eager"]["original"]["action_probability"]["estimate"] == 1.0
    curve = withheld["first_action_curve"]
    assert curve == sorted(curve) and curve[-1] == pytest.approx(((n + 1) // 2) / n)

    gap = data["static_gap"]["eager"]["static vs original"]
    assert gap["pairs"] == n and gap["static_accuracy"] == 1.0 and gap["interactive_ecs"] == 0.0
    assert gap["gap_points"]["estimate"] == pytest.approx(100.0)

    reps = data["repetitions"]["eager"]
    assert list(reps["runs"]) == ["eager-iv#0", "eager-again#0"]
    assert reps["sd"] == 0.0  # the scripted agent is deterministic

    coverage = {Path(r["run"]).name: r for r in data["runs"]}
    assert coverage["eager-iv"]["missing"] == {"api_error": 1}
    assert elapsed < 60


def test_degenerate_inputs_still_give_every_section(runs: dict[str, Path], tmp_path: Path) -> None:
    """A run whose episodes are all missing, alone and next to a real run: no crash, honest dashes."""
    records = read_episodes(runs["eager"] / "episodes.jsonl")[:20]
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "run.json").write_text(json.dumps({"agent": "gpt-x", "harness": "inspect", "planned": 20}))
    lost = {"status": "missing", "missing_reason": "api_error: overloaded", "verdict": None, "agent": "gpt-x"}
    (broken / "episodes.jsonl").write_text("".join(r.model_copy(update=lost).model_dump_json() + "\n" for r in records))

    alone = report([broken], tmp_path / "alone")
    md = alone["markdown"].read_text()
    assert "| broken | gpt-x · inspect | 0 / 20 | 0.0 | api_error: 20 |" in md
    assert "No scored episode in the original condition." in md
    assert "A paired comparison needs at least two configurations." in md
    assert section_ids(alone["html"].read_text()) == list(ALWAYS)
    assert not [k for k in alone if k.startswith("figures/")]

    both = report([runs["reference"], broken], tmp_path / "both")
    data = json.loads(both["data"].read_text())
    assert data["paired"][0]["common_cases"] == 0 and data["paired"][0]["delta_points"]["estimate"] is None
    assert "figures/paired_deltas.png" not in both
