"""Validation of one case: lint clean and its reference solution scores 1 (SPEC §7)."""

from __future__ import annotations

from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.model import Case
from ..core.script import run_script
from .lint import lint_case


def validate_case(case: Case) -> list[str]:
    label = case.id if case.condition == "original" else f"{case.id}[{case.condition}]"
    problems = [f"{label}: {p}" for p in lint_case(case)]
    episode = Episode(case)
    run_script(episode, case.reference)
    verdict = evaluate(case, episode.trajectory())
    if verdict.score != 1:
        problems.append(f"{label}: reference solution scored 0 ({verdict.findings[0].detail})")
    return problems
