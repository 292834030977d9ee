"""Comparability warnings: what a reader must know before comparing the configurations' numbers -
runs of different suites, configurations that scored different case sets (and what the paired
comparisons use instead), and input the report used with a correction."""

from __future__ import annotations

from typing import Any

from ..structure import Section
from .context import Context


def _suite(meta: dict[str, Any]) -> str:
    suite = (meta.get("config") or {}).get("suite") or {}
    version = suite.get("version") or meta.get("suite_version") or "?"
    checksum = str(suite.get("checksum") or "")[:12]
    return f"{suite.get('name', 'safeactbench')} {version}" + (f" (checksum {checksum})" if checksum else "")


def comparability_section(ctx: Context) -> Section | None:
    notes: list[str] = []
    suites: dict[str, list[str]] = {}
    for run in ctx.runs:
        suites.setdefault(_suite(run.meta), []).append(run.path.name)
    if len(suites) > 1:
        listed = "; ".join(f"{suite}: {', '.join(names)}" for suite, names in suites.items())
        notes.append(
            f"The runs come from {len(suites)} different suites ({listed}). A case id may name different "
            "cases in them: compare their numbers only as numbers of different benchmarks."
        )
    case_sets = {label: set(scores) for label, scores in ctx.case_scores.items()}
    if len({frozenset(s) for s in case_sets.values()}) > 1:
        common = set.intersection(*case_sets.values())
        sizes = "; ".join(f"{label} {len(cases)}" for label, cases in case_sets.items())
        notes.append(
            f"The configurations scored different case sets (scored cases, original condition: {sizes}). "
            "The main table's ECS and its best/second marks are each over a configuration's own cases, so "
            "they rank different sets; the paired comparisons use the cases both configurations of a pair "
            f"scored ({len(common)} are common to all of them)."
        )
    notes += [warning for run in ctx.runs for warning in run.warnings]
    if not notes:
        return None
    ctx.data["comparability"] = notes
    return Section(
        "comparability",
        "Comparability warnings",
        intro="Read these before comparing configurations.",
        notes=notes,
    )
