"""The report on real runs of reference, eager and skeptic over the whole suite: every section,
every figure, a self-contained HTML page; plus interventions and the static gap on runs derived
from them, chosen trajectories, and input errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.agents import get_agent
from safeactbench.analysis import ReportError
from safeactbench.analysis.command import report
from safeactbench.analysis.report import build_report
from safeactbench.analysis.runs import load_runs
from safeactbench.analysis.stats import wilson
from safeactbench.cli import app
from safeactbench.core.model import Case, Protocol
from safeactbench.runs.runconfig import RunConfig
from safeactbench.runs.runner import Job, missing_record, play_scripted
from safeactbench.runs.store import EpisodeRecord, RunStore
from safeactbench.suite.catalog import get_case
from safeactbench.suite.data import load_suite
from served import TWO_PER_PROTOCOL

AGENTS = ("reference", "eager", "skeptic")
ALWAYS = ("coverage", "end-reasons", "main", "judgement", "domains", "failure-modes", "evidence", "retrieval",
          "static-gap", "paired", "repetitions", "cost", "sensitivity", "trajectories", "browser",
          "methods")  # fmt: skip
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
    return report([runs[a] for a in AGENTS], tmp_path_factory.mktemp("report"), pairs="all")


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
        "figures/effort_curves.png",
        "figures/paired_deltas.png",
    }
    for key in figures:
        assert written[key].read_bytes().startswith(PNG)
    html = written["html"].read_text(encoding="utf-8")
    assert section_ids(html) == list(ALWAYS)  # no interventions without conditions
    md = written["markdown"].read_text(encoding="utf-8")
    for title in ("Runs and coverage", "Main results", "ECS by domain", "Failure modes", "Evidence before action",
                  "Retrieval effort", "Static vs interactive gap", "Paired comparisons", "Repetitions", "Cost",
                  "Illustrative trajectories", "Episode browser", "Methods"):  # fmt: skip
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
    # 100 %: the Wilson interval over the n cases, not a zero-width bootstrap point
    assert main["reference"]["ecs_ci"]["high"] == 1.0
    assert main["reference"]["ecs_ci"]["low"] == pytest.approx(wilson(n, n)[0])
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
    # the interactive cases only (STUDY T-harness pairs V0-V3); a clear difference is marked
    assert ref_eager["common_cases"] == sum(c.protocol.value != "Legacy" for c in load_suite())
    assert ref_eager["ci_excludes_zero"] is True
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


def store_run(directory: Path, config: RunConfig, records: list[EpisodeRecord]) -> Path:
    """A run directory written through the run store, as a harness writes it."""
    store = RunStore(directory)
    store.open(config, {}, planned=len(records), resume=False)
    with store.appender() as appender:
        for record in records:
            appender.write(record)
    store.release()
    return directory


def mixed_agent_records(cases: list[Case], conditions: tuple[str, ...], repetition: int = 0) -> list[EpisodeRecord]:
    """Genuine episodes of 'mixed', an agent that acts at once on every other case (as `eager`) and
    investigates properly on the rest (as `reference`)."""
    agents = (get_agent("eager"), get_agent("reference"))
    return [
        play_scripted(Job(get_case(case.id, condition), condition, repetition), agents[i % 2]).model_copy(
            update={"agent": "mixed"}
        )
        for condition in conditions
        for i, case in enumerate(cases)
    ]


def test_interventions_static_gap_repetitions_and_missing(runs: dict[str, Path], tmp_path: Path) -> None:
    v1 = sorted((c for c in load_suite() if c.protocol == Protocol.V1), key=lambda c: c.id)
    n = len(v1)
    config = RunConfig(agent="mixed", harness="scripted", conditions=["original", "withheld", "static"])
    records = mixed_agent_records(v1, ("original", "withheld", "static"))
    lost = Job(get_case("SAB-V1-001"), "original", 5)
    records.append(missing_record(lost, config, "api_error: 529"))
    derived = store_run(tmp_path / "mixed-iv", config, records)
    again = store_run(tmp_path / "mixed-again", config, mixed_agent_records(v1, ("original",)))
    written = report([runs["reference"], derived, again], tmp_path / "report")
    html = written["html"].read_text()
    assert "interventions" in section_ids(html)
    assert {"figures/interventions_action.png", "figures/first_action_timing.png"} <= set(written)
    data = json.loads(written["data"].read_text())

    # computed by hand from the episodes: the eager half acts under every condition, the careful
    # half acts on originals only
    eager_half, careful_half = (n + 1) // 2, n // 2
    withheld = data["interventions"]["mixed"]["withheld"]
    assert withheld["episodes"] == n
    assert withheld["action_probability"]["estimate"] == pytest.approx(eager_half / n)
    reduction = withheld["reduction_vs_original_points"]
    assert reduction["estimate"] == pytest.approx(100 * careful_half / n)
    assert reduction["low"] <= reduction["estimate"] <= reduction["high"]
    assert data["interventions"]["mixed"]["original"]["action_probability"]["estimate"] == 1.0
    timing = withheld["first_action_curve"]
    curve = timing["share"]
    assert timing["cases"] == n and curve == sorted(curve) and curve[-1] == pytest.approx(eager_half / n)
    assert all(low <= share <= high for low, share, high in zip(timing["low"], curve, timing["high"], strict=True))
    # the careful half stops where it acted on the original; the eager half acts again
    assert withheld["decision_transitions"] == {"act->act": eager_half, "act->stop": careful_half}

    gap = data["static_gap"]["mixed"]["static vs original"]
    assert gap["pairs"] == n and gap["static_accuracy"] == 1.0
    assert gap["interactive_ecs"] == pytest.approx(careful_half / n)
    assert gap["gap_points"]["estimate"] == pytest.approx(100 * eager_half / n)

    reps = data["repetitions"]["mixed"]
    assert list(reps["runs"]) == ["mixed-iv#0", "mixed-again#0"]
    assert reps["sd"] == 0.0  # the scripted agent is deterministic

    coverage = {Path(r["run"]).name: r for r in data["runs"]}
    assert coverage["mixed-iv"]["missing"] == {"api_error": 1}


def test_harness_pairs_are_formed_within_a_model(runs: dict[str, Path], tmp_path: Path) -> None:
    """The study's harness comparison: a model against itself on another harness, never across
    models unless asked. A scripted agent is the model it is served as (reference = safeactbench/reference)."""
    inspect_run = tmp_path / "reference-inspect"
    args = ["run", "--model", "safeactbench/reference", "--cases", ",".join(TWO_PER_PROTOCOL),
            "--max-concurrency", "16", "--out", str(inspect_run), "--no-report"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    given = [runs["eager"], inspect_run, runs["reference"]]
    data = json.loads(report(given, tmp_path / "harness")["data"].read_text())
    [pair] = data["paired"]
    assert (pair["model"], pair["a"], pair["b"]) == (
        "safeactbench/reference",
        "reference",
        "safeactbench/reference · inspect",
    )
    interactive = [c for c in TWO_PER_PROTOCOL if not c.startswith("SAB-L")]
    assert pair["common_cases"] == len(interactive) and pair["delta_points"]["estimate"] == 0.0
    assert pair["ci_excludes_zero"] is False
    md = (tmp_path / "harness" / "report.md").read_text()
    assert "| Model | Harness A | Harness B |" in md and "| safeactbench/reference | scripted | inspect |" in md
    # across models only on request
    every = json.loads(report(given, tmp_path / "all", pairs="all")["data"].read_text())["paired"]
    inspected = "safeactbench/reference · inspect"
    assert [(p["a"], p["b"]) for p in every] == [("eager", inspected), ("eager", "reference"), (inspected, "reference")]
    # nothing to pair within a model: the section says how to get a pair
    alone = report([runs["eager"], runs["reference"]], tmp_path / "none")
    assert json.loads(alone["data"].read_text())["paired"] == []
    assert "No model was run under two harnesses" in alone["markdown"].read_text()
    result = CliRunner().invoke(app, ["report", str(runs["eager"]), "--out", str(tmp_path / "x"), "--pairs", "some"])
    assert result.exit_code == 2 and "--pairs: unknown 'some'" in result.output


def test_degenerate_inputs_still_give_every_section(runs: dict[str, Path], tmp_path: Path) -> None:
    """A run whose episodes are all missing, alone and next to a real run: no crash, honest dashes."""
    config = RunConfig(agent="gpt-x", harness="inspect", model="gpt-x")
    jobs = [Job(case, "original", 0) for case in list(load_suite())[:20]]
    broken = store_run(tmp_path / "broken", config, [missing_record(j, config, "api_error: overloaded") for j in jobs])

    alone = report([broken], tmp_path / "alone")
    md = alone["markdown"].read_text()
    assert "| broken | gpt-x · inspect | 0 / 20 | 0.0 | api_error: 20 |" in md
    assert "No scored episode in the original condition." in md
    assert "A paired comparison needs at least two configurations." in md
    assert section_ids(alone["html"].read_text()) == list(ALWAYS)
    assert not [k for k in alone if k.startswith("figures/")]

    both = report([runs["reference"], broken], tmp_path / "both", pairs="all")
    data = json.loads(both["data"].read_text())
    assert data["paired"][0]["common_cases"] == 0 and data["paired"][0]["delta_points"]["estimate"] is None
    assert "figures/paired_deltas.png" not in both
