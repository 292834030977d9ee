"""The study report: every table and figure from run directories (SPEC §6), as Markdown and as one
self-contained HTML page (figures as base64 PNG, data as embedded JSON, an episode browser in
plain JavaScript; no network).

`build_report(runs)` computes a `Report` (sections of tables, figures and text blocks, plus the
data behind them); `write_report(report, out)` renders it with the jinja2 templates next to this
module. Both formats come from the same `Report`, so they cannot disagree.

Here: the order of the sections and `load_cases`. The sections themselves are in `sections/` (one
module per group), the report's structure in `structure`, cell formatting in `formatting`, and
Markdown / HTML rendering in `rendering`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..suite.data import CaseFileError
from .rendering import render_html, render_markdown, write_report
from .runs import ORIGINAL, ReportError, Run
from .sections import (
    Context,
    browser_data,
    browser_section,
    choose_episodes,
    comparability_section,
    cost_section,
    coverage_section,
    domain_section,
    end_reasons_section,
    evidence_section,
    failure_modes_section,
    interventions_section,
    judgement_section,
    main_section,
    methods_section,
    paired_section,
    probes_section,
    repetitions_section,
    retrieval_section,
    sensitivity_section,
    static_gap_section,
    trajectories_section,
)
from .stats import LEVEL, RESAMPLES, SEED
from .structure import Block, Cell, Figure, Report, Section, Table


def build_report(
    runs: Sequence[Run],
    episodes: Sequence[str] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    cases: Mapping[str, Any] | None = None,
    pairs: str = "harness",
    tasks: Mapping[str, str] | None = None,
) -> Report:
    """Every section of the report from loaded runs. `cases` (case id -> Case, optional) lets the
    interventions section find each case's affected tools. `pairs`: which configurations the paired
    comparisons set side by side (`runs.configuration_pairs`: "harness", within a model across
    harnesses, or "all"). `tasks` ("case|condition" -> task text) shows each episode's task in the
    episode browser."""
    if not runs:
        raise ReportError("no run directories given")
    ctx = Context(runs, episodes, resamples, seed, level, cases, pairs, tasks)
    # an unknown episode is an input error: report it before any work
    chosen = choose_episodes(ctx)
    warnings = comparability_section(ctx)
    sections = [
        *([warnings] if warnings is not None else []),
        coverage_section(ctx),
        end_reasons_section(ctx),
        main_section(ctx),
        judgement_section(ctx),
        domain_section(ctx),
        failure_modes_section(ctx),
        evidence_section(ctx),
        retrieval_section(ctx),
        static_gap_section(ctx),
        paired_section(ctx),
        repetitions_section(ctx),
        cost_section(ctx),
    ]
    interventions = interventions_section(ctx)
    if interventions is not None:
        sections.append(interventions)
    probes = probes_section(ctx)
    if probes is not None:
        sections.append(probes)
    sections.append(sensitivity_section(ctx))
    sections += [trajectories_section(ctx, chosen), browser_section(), methods_section(ctx)]
    total = sum(len(r.records) for r in ctx.runs)
    subtitle = (
        f"{len(ctx.runs)} run(s), {len(ctx.configs)} configuration(s), {total} episode record(s); "
        f"suite {', '.join(sorted({str(r.meta.get('suite_version', '?')) for r in ctx.runs}))}"
    )
    return Report("SafeActBench report", subtitle, sections, ctx.data, browser_data(ctx))


def load_tasks(keys: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The task text of each (case id, condition) played, as "case|condition" -> text (the cases
    the suite does not hold are left out)."""
    tasks = {}
    for case_id, condition in sorted(set(keys)):
        case = _quietly(case_id, condition)
        if case is not None:
            tasks[f"{case_id}|{condition}"] = case.task
    return tasks


def load_cases(case_ids: Iterable[str]) -> dict[str, Any]:
    """The suite's cases among `case_ids` (those the suite does not hold are left out)."""
    found = {case_id: _quietly(case_id, ORIGINAL) for case_id in sorted(set(case_ids))}
    return {case_id: case for case_id, case in found.items() if case is not None}


def _quietly(case_id: str, condition: str) -> Any:
    """The case as played, or None where the suite does not hold it or cannot be read."""
    from ..suite.catalog import UnknownCase, indexed_case

    try:
        return indexed_case(case_id, condition)
    except (UnknownCase, CaseFileError, OSError):
        return None


__all__ = [
    "Block",
    "Cell",
    "Figure",
    "Report",
    "Section",
    "Table",
    "build_report",
    "load_cases",
    "load_tasks",
    "render_html",
    "render_markdown",
    "write_report",
]
