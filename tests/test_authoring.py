"""Authoring your own suite, as docs/authoring.md walks it: `suite new` writes an example domain,
the author adds a family, `suite build --from` builds the suite, and every command plays it with
`--suite` (validate, scripted and Inspect runs, the MCP server, evaluate, report)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from safeactbench.cli import app
from safeactbench.core.evaluator import evaluate
from safeactbench.runs.store import read_episodes
from safeactbench.suite.build import build_suite
from safeactbench.suite.catalog import use_suite
from safeactbench.suite.data import read_suite
from safeactbench.suite.families import FamiliesError, load_domains
from served import play_over_mcp, serve_agent


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def add_family(families: Path) -> None:
    """What the README of a new suite says: copy the example family, give it its own story and
    name, list it in the domain."""
    domain = families / "library"
    text = (domain / "renewal.py").read_text()
    text = text.replace('Family("loan_renewal", "Loan renewal within the limits"', 'Family("kiosk_renewal", "Kiosk"')
    text = text.replace("asks us to renew loan", "asks at the self-service kiosk to renew loan")
    (domain / "kiosk.py").write_text(text)
    init = (domain / "__init__.py").read_text()
    init = init.replace("from . import renewal", "from . import kiosk, renewal")
    init = init.replace("families=[renewal.FAMILY]", "families=[renewal.FAMILY, kiosk.FAMILY]")
    (domain / "__init__.py").write_text(init)


@pytest.fixture(scope="module")
def authored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    suite = tmp_path_factory.mktemp("authored") / "library-suite"
    assert "suite build --from" in cli("suite", "new", str(suite))
    add_family(suite / "families")
    assert "wrote 14 cases (suite library-suite 0.1.0)" in cli("suite", "build", "--from", str(suite / "families"))
    yield suite
    use_suite(None)  # the commands ran in this process: back to the packaged suite


def test_a_new_suite_with_two_families_plays_on_every_command(authored: Path, tmp_path: Path) -> None:
    cases = read_suite(authored)
    assert cases == build_suite(load_domains(authored / "families"))  # written and read back, case for case
    assert {c.family for c in cases} == {"loan_renewal", "kiosk_renewal"}
    assert {len(c.tools) for c in cases} == {9, 11}  # one domain, two tool lists: V3 cases add the fee tools
    assert {str(c.protocol) for c in cases} == {"Legacy", "V0", "V1", "V2", "V3"}
    suite = ["--suite", str(authored)]
    assert "lint clean; reference solutions 58/58" in cli("validate", *suite, "--conditions", "all")
    runs = {name: tmp_path / name for name in ("reference", "inspect", "eager")}
    cli("run", *suite, "--agent", "reference", "--out", str(runs["reference"]), "--no-report")
    cli("run", *suite, "--model", "safeactbench/reference", "--out", str(runs["inspect"]), "--no-report")
    cli("run", *suite, "--agent", "eager", "--out", str(runs["eager"]), "--no-report")
    for name in ("reference", "inspect"):
        records = read_episodes(runs[name] / "episodes.jsonl")
        assert len(records) == 14 and all(r.verdict is not None and r.verdict.score == 1 for r in records)
    assert sum(r.verdict.score for r in read_episodes(runs["eager"] / "episodes.jsonl") if r.verdict) < 7
    assert "14 episodes" in cli("evaluate", *suite, str(runs["inspect"] / "episodes.jsonl"))
    cli("report", *suite, *map(str, runs.values()), "--out", str(tmp_path / "report"))
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["main"]["reference"]["ecs"] == {"successes": 14, "n": 14, "value": 1.0}
    assert report["main"]["eager"]["ecs"]["successes"] < 7

    # a CLI agent plays one of the suite's cases through `mcp --suite` (the official MCP SDK over stdio)
    case = next(c for c in cases if c.family == "kiosk_renewal" and str(c.protocol) == "V3")
    trajectory = play_over_mcp(authored, case.id, tmp_path)
    assert evaluate(case, trajectory).score == 1


def test_a_broken_families_folder_is_named(tmp_path: Path) -> None:
    families = cli("suite", "new", str(tmp_path / "s")) and tmp_path / "s" / "families"
    renewal = families / "library" / "renewal.py"
    original = renewal.read_text()
    renewal.write_text(original.replace("def build(d: Draft) -> None:", "def build(d: Draft) -> None:\n    d.nope()"))
    result = CliRunner().invoke(app, ["suite", "build", "--from", str(families)])
    assert result.exit_code != 0 and "family library/loan_renewal" in result.output, result.output
    assert "nope" in result.output
    renewal.write_text(original + "\nimport not_a_module_anywhere\n")
    with pytest.raises(FamiliesError, match=r"library/__init__.py: ModuleNotFoundError"):
        load_domains(families)
    (families / "stray.py").write_text("X = 1\n")
    renewal.write_text(original)
    with pytest.raises(FamiliesError, match=r"stray.py: defines no DOMAIN"):
        load_domains(families)
    init = families / "library" / "__init__.py"
    (families / "stray.py").unlink()
    init.write_text(re.sub(r"\n    composition=.*\n", "\n", init.read_text()))
    with pytest.raises(FamiliesError, match=r"library/__init__.py: DOMAIN declares no composition"):
        load_domains(families)
    result = CliRunner().invoke(app, ["suite", "new", str(tmp_path / "s")])
    assert result.exit_code != 0 and "not empty" in result.output


def test_serve_agent_and_audit_play_the_suite(authored: Path, tmp_path: Path) -> None:
    """The processes a run talks to read the same suite: serve-agent answers the lean loop's
    requests from the suite's reference solutions; the audit mutates the suite's cases."""
    suite = ["--suite", str(authored)]
    with serve_agent("reference", *suite) as url:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "safeactbench",
                "run",
                *suite,
                "--model",
                "openai/served",
                "--harness",
                "lean",
                "--model-arg",
                f"base_url={url}",
                "--no-preflight",
                "--no-report",
                "--out",
                str(tmp_path / "lean"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    records = read_episodes(tmp_path / "lean" / "episodes.jsonl")
    assert len(records) == 14 and all(r.verdict is not None and r.verdict.score == 1 for r in records)
    cli("audit", *suite, "--json", "--out", str(tmp_path / "audit.json"))
    report = json.loads((tmp_path / "audit.json").read_text())
    assert report["cases"] == 14 and report["ok"] and report["total"]["mutants"] > 100, report["total"]
    assert report["total"]["false_accepts"] == report["total"]["false_rejects"] == 0
