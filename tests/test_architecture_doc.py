"""docs/architecture.md answers "where do I add a domain, a harness, a metric, a command" with paths
that exist, and every file or directory it names is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "safeactbench"


def test_every_path_the_architecture_page_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`(src/safeactbench/[\w/.]*)`", text))
    inside = re.findall(r"`((?:[a-z_]+/)+[\w.]*)`", text)  # `runs/store.py`, `harness/`
    named |= {
        p if p.startswith(("tests/", "docs/")) else f"src/safeactbench/{p}" for p in inside if not p.startswith("src/")
    }
    assert len(named) > 20, named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == [], missing
    files = set(re.findall(r"`([a-z_]+\.py)`", text))
    assert all(list(PACKAGE.rglob(f)) for f in files), sorted(f for f in files if not list(PACKAGE.rglob(f)))


def test_it_answers_the_four_questions() -> None:
    text = DOC.read_text(encoding="utf-8")
    for thing in ("a domain", "a harness", "a metric", "a command"):
        answer = text.split(f"- **{thing}** —", 1)[1].split("\n- **", 1)[0]
        assert "`src/safeactbench/" in answer, thing
