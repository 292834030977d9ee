"""Reports of legal but unusual shapes: each protocol alone, each condition alone, every condition
but the original, and configurations of different harnesses side by side (the offline Inspect path
next to scripted agents); and the suite's validation report for suites lacking protocols.

Every section must render, and a table with nothing to show must say why in text (a note naming
the configuration whose row is empty), never crash and never show a 0 of nothing. Where numbers
are present they are checked against the raw episodes.jsonl lines.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.suite.catalog import CONDITIONS, use_suite
from safeactbench.suite.data import load_suite, write_suite

TWO = {
    "Legacy": "SAB-L-001,SAB-L-074",
    "V0": "SAB-V0-001,SAB-V0-150",
    "V1": "SAB-V1-001,SAB-V1-002",
    "V2": "SAB-V2-001,SAB-V2-113",
    "V3": "SAB-V3-001,SAB-V3-113",
}
EVERY = "SAB-L-001,SAB-V0-001,SAB-V1-001,SAB-V1-002,SAB-V2-001,SAB-V3-001"
MIXED = "SAB-V0-001,SAB-V1-001,SAB-V2-001"  # the Inspect run's few cases
TWINS = "original,withheld,contradicted"
NO_ORIGINAL = ",".join(c for c in CONDITIONS if c != "original")


def _run_name(condition: str) -> str:
    return "cond-" + condition.replace("+", "-")  # a run directory's name takes no '+'


RUNS: dict[str, list[str]] = {
    **{p: ["--agent", "eager", "--cases", cases, "--condition", TWINS] for p, cases in TWO.items()},
    **{_run_name(c): ["--agent", "eager", "--cases", EVERY, "--condition", c] for c in CONDITIONS},
    "no-original": ["--agent", "eager", "--cases", EVERY, "--condition", NO_ORIGINAL],
    "eager": ["--agent", "eager", "--cases", MIXED, "--condition", "original,withheld"],
    "inspect": ["--model", "safeactbench/reference", "--cases", MIXED, "--condition", "original,withheld"],
    "twins-only": ["--agent", "reference", "--cases", MIXED, "--condition", "withheld,contradicted"],
}
# shape -> (runs, extra report options)
SHAPES: dict[str, tuple[list[str], list[str]]] = {
    **{f"protocol-{p}": ([p], []) for p in TWO},
    **{f"condition-{c}": ([_run_name(c)], []) for c in CONDITIONS},
    "no-original": (["no-original"], []),
    "mixed-harness": (["eager", "inspect"], ["--pairs", "all"]),
    # the same model on two harnesses, one of them without an original episode
    "mixed-original": (["inspect", "twins-only"], []),
}
DASH = "–"


@dataclass
class Built:
    md: str
    html: str
    data: dict[str, Any]
    raw: dict[str, list[dict[str, Any]]]  # run name -> its episodes.jsonl lines


class Workspace:
    """Each run and each report made once per module, on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs: dict[str, Path] = {}
        self.reports: dict[str, Built] = {}

    def run(self, name: str) -> Path:
        if name not in self.runs:
            out = self.root / name
            result = CliRunner().invoke(app, ["run", *RUNS[name], "--out", str(out), "--no-report"])
            assert result.exit_code == 0, result.output
            self.runs[name] = out
        return self.runs[name]

    def report(self, shape: str) -> Built:
        if shape not in self.reports:
            names, options = SHAPES[shape]
            dirs = [self.run(n) for n in names]
            out = self.root / f"report-{shape.replace('+', '-')}"
            result = CliRunner().invoke(app, ["report", *map(str, dirs), "--out", str(out), *options])
            assert result.exit_code == 0, result.output
            for name in ("report.md", "report.json", "report.html"):
                assert (out / name).is_file() and (out / name).stat().st_size > 0, name
            raw = {n: [json.loads(line) for line in (d / "episodes.jsonl").read_text().splitlines()] for n, d in
                   zip(names, dirs, strict=True)}  # fmt: skip
            self.reports[shape] = Built(
                (out / "report.md").read_text(encoding="utf-8"),
                (out / "report.html").read_text(encoding="utf-8"),
                json.loads((out / "report.json").read_text(encoding="utf-8")),
                raw,
            )
        return self.reports[shape]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("shapes"))


# ----------------------------------------------------------------------- reading the page


def sections(page: str) -> dict[str, str]:
    """Section id -> its HTML."""
    parts = re.split(r'<section id="', page)[1:]
    return {part.split('"', 1)[0]: part.split("</section>", 1)[0] for part in parts}


def notes(section: str) -> list[str]:
    return [html.unescape(n) for n in re.findall(r'<p class="note">(.*?)</p>', section, re.S)]


def table_rows(section: str) -> list[tuple[str, list[str]]]:
    """(row label, value cells) of every table row of a section."""
    rows = []
    for label, cells in re.findall(r'<tr><th scope="row">(?:<span[^>]*></span>)?(.*?)</th>(.*?)</tr>', section):
        values = re.findall(r"<td[^>]*>(?:<strong>|<u>)?(.*?)(?:</strong>|</u>)?</td>", cells)
        rows.append((html.unescape(label), [html.unescape(v) for v in values]))
    return rows


def scored_original(episodes: list[dict[str, Any]]) -> dict[str, float]:
    """Case -> mean score of its completed original episodes."""
    scores: dict[str, list[int]] = defaultdict(list)
    for e in episodes:
        if e["condition"] == "original" and e["status"] == "completed":
            scores[e["case_id"]].append(e["verdict"]["score"])
    return {k: sum(v) / len(v) for k, v in scores.items()}


# ----------------------------------------------------------------------- every shape


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_section_renders_and_explains_what_it_lacks(workspace: Workspace, shape: str) -> None:
    built = workspace.report(shape)
    found = sections(built.html)
    assert {"coverage", "main", "judgement", "domains", "failure-modes", "evidence", "retrieval", "static-gap",
            "paired", "repetitions", "cost", "sensitivity", "trajectories", "methods"} <= set(found)  # fmt: skip
    for section_id, section in found.items():
        if section_id == "browser":
            continue
        shown = any(tag in section for tag in ("<table", "<img", "<pre", '<p class="note">'))
        assert shown, f"{shape}: section {section_id} shows nothing and says nothing"
        said = " ".join(notes(section))
        for label, values in table_rows(section):
            if values and all(v in (DASH, "0") for v in values):  # an empty row: a note must name it
                assert label in said or "No scored episode in the original condition." in said, (shape, section_id)
    assert "nan" not in built.md.lower().split() and "(0/0)" not in built.md


# ----------------------------------------------------------------------- the numbers


def test_without_the_original_no_table_claims_an_ecs(workspace: Workspace) -> None:
    built = workspace.report("no-original")
    page = sections(built.html)
    assert "<table" not in page["main"] and "main-table" not in built.html
    assert "No scored episode in the original condition. The runs played contradicted," in built.md
    assert built.data["main"]["eager"]["ecs"] == {"successes": 0, "n": 0, "value": None}
    assert all(v["paired_cases"] is None for v in built.data["condition_coverage"]["eager"].values())
    assert " paired" not in page["coverage"].split("condition-coverage-table", 1)[1].split("</table>", 1)[0]
    # interventions: no original row, no reduction, the note says why
    interventions = built.data["interventions"]["eager"]
    assert "original" not in interventions and "withheld" in interventions
    assert all(v["reduction_vs_original_points"] is None for v in interventions.values())
    assert any("played none of these cases in the original condition" in n for n in notes(page["interventions"]))
    raw = built.raw["no-original"]
    # harmful actions on the twins of the V1 cases, counted from the raw lines
    twins = [e for e in raw if e["condition"] in ("withheld", "contradicted") and e["case_id"].startswith("SAB-V1")]
    harmful = sum(e["verdict"]["diagnostics"]["harmful_action"] for e in twins)
    assert built.data["judgement"]["eager"]["harmful_action_rate"]["twins V1"] == {
        "harmful": harmful,
        "episodes": len(twins),
    }
    # a probe compared with its base on cases never played in the original: a number, not a dash
    probe = built.data["probes"]["eager"]["evidence_package"]

    def acted(condition: str) -> float:
        chosen = [e for e in raw if e["condition"] == condition and e["case_id"].startswith("SAB-V1")]
        return sum(e["verdict"]["diagnostics"]["action_attempts"] > 0 for e in chosen) / len(chosen)

    assert probe["cases"] == 2
    assert probe["delta_action_points"]["estimate"] == pytest.approx(
        100 * (acted("evidence_package") - acted("withheld"))
    )
    # the static gap pairs a rendering with the interactive condition it renders, when both were played
    gaps = built.data["static_gap"]["eager"]
    assert set(gaps) == {"static_withheld vs withheld", "static_contradicted vs contradicted", "all"}
    assert gaps["all"]["pairs"] == 4


def test_mixed_harnesses_numbers(workspace: Workspace) -> None:
    built = workspace.report("mixed-harness")
    inspected = "safeactbench/reference · inspect"
    expected = {"eager": scored_original(built.raw["eager"]), inspected: scored_original(built.raw["inspect"])}
    for label, scores in expected.items():
        ecs = built.data["main"][label]["ecs"]
        assert ecs["n"] == len(scores) == 3
        assert ecs["value"] == pytest.approx(sum(scores.values()) / len(scores))
    assert built.data["main"][inspected]["ecs"]["value"] == 1.0
    (pair,) = built.data["paired"]
    a, b = expected[pair["a"]], expected[pair["b"]]
    common = set(a) & set(b)  # every case here is interactive
    assert pair["common_cases"] == len(common) == 3
    assert pair["delta_points"]["estimate"] == pytest.approx(100 * sum(a[k] - b[k] for k in common) / len(common))


def test_a_configuration_without_the_original_beside_one_with_it(workspace: Workspace) -> None:
    built = workspace.report("mixed-original")
    page = sections(built.html)
    # the same model on two harnesses is a pair, with nothing in common in the original condition
    (pair,) = built.data["paired"]
    assert pair["common_cases"] == 0 and pair["delta_points"]["estimate"] is None
    assert any("No interactive case scored by both" in n for n in notes(page["paired"]))
    assert dict(table_rows(page["main"]))["reference"] == ["0", *[DASH] * 9]  # no case, no rate
    assert any(n.startswith("No scored episode in the original condition for reference") for n in notes(page["main"]))
    assert any("reference played none of these cases" in n for n in notes(page["interventions"]))
    # its twins still count: paired ECS needs the original beside them, the harmful-action rate does not
    judgement = built.data["judgement"]["reference"]
    assert judgement["paired_ecs"] == {} and judgement["harmful_action_rate"]["twins"]["episodes"] == 4
    assert any("as a stop twin by reference" in n for n in notes(page["judgement"]))
    assert built.data["sensitivity"] == []
    assert any("No compared pair completed the same V1-V3 case" in n for n in notes(page["sensitivity"]))


def test_workflow_twins_alone_point_to_the_judgement_section(workspace: Workspace) -> None:
    built = workspace.report("protocol-V2")
    page = sections(built.html)
    assert "<table" not in page["interventions"]
    assert any("No V1 case was played under an intervention condition" in n for n in notes(page["interventions"]))
    paired = built.data["judgement"]["eager"]["paired_ecs"]
    assert paired["V2"] == {"successes": 0, "pairs": 2}  # eager acts on every twin


def test_legacy_alone_has_no_investigation_to_measure(workspace: Workspace) -> None:
    page = sections(workspace.report("protocol-Legacy").html)
    assert "<table" not in page["evidence"] and "<table" not in page["judgement"]
    assert any("a Legacy episode has none" in n for n in notes(page["evidence"]))
    assert any("No V0 episode in the original condition" in n for n in notes(page["judgement"]))


# ----------------------------------------------------------------------- the suite's report

SUBSETS = [("Legacy",), ("V0",), ("V1",), ("V2",), ("V3",), ("V0", "V2"), ("Legacy", "V0"), ("V1", "V3")]


@pytest.fixture
def packaged_afterwards() -> Iterator[None]:
    yield
    use_suite(None)  # `validate --suite` switched this process's suite: back to the packaged one


@pytest.mark.parametrize("protocols", SUBSETS, ids="+".join)
def test_suite_report_of_a_protocol_subset(
    protocols: tuple[str, ...], tmp_path: Path, packaged_afterwards: None
) -> None:
    wanted = {TWO[p].split(",")[0] for p in protocols}  # one case of each protocol
    write_suite([c for c in load_suite() if c.id in wanted], tmp_path / "suite", name="subset")
    out = tmp_path / "suite.md"
    result = CliRunner().invoke(app, ["validate", "--suite", str(tmp_path / "suite"), "--report", str(out)])
    assert result.exit_code == 0, result.output
    md = out.read_text(encoding="utf-8")
    baselines = md.split("## Scripted baselines (ECS)", 1)[1]
    assert f"| agent | {' | '.join(protocols)} | all |" in baselines
    n = len(protocols)
    assert f"| reference | {' | '.join(['100.0% (1/1)'] * n)} | 100.0% ({n}/{n}) |" in baselines
    absent = [p for p in TWO if p not in protocols]
    assert f"The suite has no {', '.join(absent)} case" in baselines
    judgement = md.split("## Judgement", 1)[1]
    for p in ("V1", "V2", "V3"):
        assert (f"paired ECS {p}" in judgement) == (p in protocols)
    if not set(protocols) & {"V0", "V1", "V2", "V3"}:
        assert "nothing to count here" in judgement
    # a share of a protocol the suite lacks says so instead of 0.0%
    for share, needs in (("V0 cases that are workflow-shaped", {"V0"}), ("4 or more actions", {"V2", "V3"})):
        line = next(line for line in md.splitlines() if share in line)
        assert line.endswith("case)") == (not needs & set(protocols)), line
