"""Every `safeactbench run` command docs/harnesses.md shows for a CLI agent parses (its options
exist and take those values) and names a harness or template that exists; where the CLI is
installed, it runs inside the sandbox at a tested version (the preflight `run` does before any
episode). Hosted endpoints are never called: the offline commands run end to end elsewhere
(tests/test_family_cli.py, tests/test_command_harness.py)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import typer

from safeactbench.cli import app
from safeactbench.harness.bwrap_sandbox import missing_tools
from safeactbench.harness.cli_install import prepare_cli
from safeactbench.harness.cli_templates import EXECUTABLES, TEMPLATES
from safeactbench.harness.command import check_template
from safeactbench.harness.family_cli import FAMILY_CLIS, executable

DOC = Path(__file__).resolve().parent.parent / "docs" / "harnesses.md"


def documented_runs() -> list[list[str]]:
    """The doc's `safeactbench run` lines for CLI agents (`--harness-cmd`, `--harness` a family CLI)
    inside ```bash blocks, continuation lines joined, comments cut."""
    runs = []
    for block in re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            family = "--harness" in words and words[words.index("--harness") + 1] in FAMILY_CLIS
            if words[:2] == ["safeactbench", "run"] and ("--harness-cmd" in words or family):
                runs.append(words[2:])
    return runs


RUNS = documented_runs()


def test_the_doc_shows_a_command_for_every_cli_on_both_paths() -> None:
    harnesses = {words[words.index("--harness") + 1] for words in RUNS if "--harness" in words}
    templates = {words[words.index("--harness-cmd") + 1] for words in RUNS if "--harness-cmd" in words}
    assert set(FAMILY_CLIS) <= harnesses, harnesses
    assert {f"@{name}" for name in TEMPLATES} <= templates, templates


@pytest.mark.parametrize("words", RUNS, ids=[" ".join(w)[:60] for w in RUNS])
def test_a_documented_cli_command_parses_and_names_what_exists(words: list[str]) -> None:
    command = typer.main.get_command(app)
    run = command.commands["run"]  # type: ignore[attr-defined]
    context = run.make_context("run", list(words), resilient_parsing=False)
    params = context.params
    if params.get("harness_cmd"):
        template = str(params["harness_cmd"])
        assert template[1:] in TEMPLATES, template
        check_template(TEMPLATES[template[1:]])
        name = EXECUTABLES[template[1:]][0]
    else:
        name = executable(params["harness_name"])
    if shutil.which(name) is None or missing_tools():
        pytest.skip(f"`{name}` or bubblewrap is not installed here")
    assert prepare_cli(name, sandbox=True).version  # the CLI runs inside the sandbox, at a tested version
