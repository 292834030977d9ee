"""Validation of one case: lint clean and its reference solution scores 1 (SPEC §7); problems come as
errors (the case is inconsistent or unplayable) and warnings (authoring conventions)."""

from __future__ import annotations

from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.model import Case
from ..core.script import run_script
from .lint import lint_levels


def validate_case(case: Case) -> list[str]:
    """Every problem of the case, errors and warnings alike."""
    errors, warnings = validate_levels(case)
    return [*errors, *warnings]


def validate_levels(case: Case) -> tuple[list[str], list[str]]:
    """(errors, warnings) of one case: lint's, and a reference solution that does not score 1 (an error)."""
    label = case.id if case.condition == "original" else f"{case.id}[{case.condition}]"
    lint_errors, lint_warnings = lint_levels(case)
    errors = [f"{label}: {p}" for p in lint_errors]
    episode = Episode(case)
    run_script(episode, case.reference)
    verdict = evaluate(case, episode.trajectory())
    if verdict.score != 1:
        errors.append(f"{label}: reference solution scored 0 ({verdict.findings[0].detail})")
    return errors, [f"{label}: {p}" for p in lint_warnings]
