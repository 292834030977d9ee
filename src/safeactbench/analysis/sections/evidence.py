"""Evidence before action: PAR, CAS, BSR, investigation completion, median query cost; the effort
curves and the coverage CDFs per protocol, case-weighted with case-bootstrap bands (STUDY F-effort)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ...runs.rows import Episode
from .. import figures as fig
from ..effort_metrics import coverage_cdf_by_case, effort_by_case, query_costs
from ..formatting import DASH, rate_json, rate_text
from ..metrics import (
    INTERACTIVE_NAMES,
    blind_stop_rate,
    conditional_action_success,
    investigation_completion,
    premature_action_rate,
)
from ..structure import Cell, Figure, Section, Table
from .context import Context, notes_of


def evidence_section(ctx: Context) -> Section:
    rows = []
    data = {}
    uninvestigated = []  # configurations with a scored original episode, none of them interactive
    for x in ctx.labels:
        rs = ctx.original[x]
        par, cas = premature_action_rate(rs), conditional_action_success(rs)
        bsr, ic = blind_stop_rate(rs), investigation_completion(rs)
        costs = query_costs(rs)
        median_cost = float(np.median(costs)) if costs else None
        if not ic.n and x not in ctx.unscored:
            uninvestigated.append(x)
        rows.append(
            [
                Cell(x),
                Cell(rate_text(par)),
                Cell(rate_text(cas)),
                Cell(rate_text(bsr)),
                Cell(rate_text(ic)),
                Cell(DASH if median_cost is None else f"{median_cost:.2f}"),
            ]
        )
        data[x] = {
            "PAR": rate_json(par),
            "CAS": rate_json(cas),
            "BSR": rate_json(bsr),
            "investigation_completion": rate_json(ic),
            "median_query_cost": median_cost,
        }
    ctx.data["evidence"] = data
    table = Table(
        "evidence-table",
        "Evidence before action (%)",
        ["Configuration", "PAR ↓", "CAS ↑", "BSR ↓", "Investigation completion ↑", "Median query cost"],
        rows,
        "PAR: V1 episodes with an action attempt whose first attempt came before its evidence was complete. "
        "CAS: V1 episodes with evidence complete before the first attempt that succeeded. BSR: V0 episodes "
        "ending in a stop whose required reads were incomplete. Investigation completion: V0-V3 episodes with "
        "all required evidence established by the end. Query cost: information calls / required reads.",
    )
    figures = []
    effort, effort_bands, effort_data = _curves(ctx, effort_by_case, BUDGETS)
    if effort:
        figures.append(
            Figure(
                "effort_curves",
                "Effort: complete investigations within a query budget",
                "Per protocol, the share of cases (each case the mean of its episodes) whose episodes completed "
                "the investigation with a normalised query cost (information calls / required reads) of at most "
                "x; x linear up to 1, logarithmic beyond. Pointwise 95% case-bootstrap bands.",
                fig.curves(
                    effort,
                    "query budget x (calls / required reads)",
                    "share of cases",
                    "Effort",
                    ctx.colours,
                    effort_bands,
                    BUDGETS,
                    True,
                ),
            )
        )
    coverage, coverage_bands, coverage_data = _curves(ctx, coverage_cdf_by_case, THRESHOLDS)
    if coverage:
        figures.append(
            Figure(
                "coverage_cdf",
                "Required-read coverage at the decision points",
                "Case-weighted CDF of the share of required reads established at the V0 stop, the V1 first "
                "attempt and each V2/V3 action gate the episode reached (a case's gates share its weight). "
                "Lower curves = more coverage. Pointwise 95% case-bootstrap bands, a case's gates resampled "
                "together.",
                fig.curves(
                    coverage,
                    "coverage",
                    "cumulative share of cases",
                    "Coverage at the decision points",
                    ctx.colours,
                    coverage_bands,
                    THRESHOLDS,
                ),
            )
        )
    ctx.data["effort"] = {"budgets": list(BUDGETS), "curves": effort_data}
    ctx.data["coverage_cdf"] = {"thresholds": list(THRESHOLDS), "curves": coverage_data}
    shown = len(uninvestigated) + len(ctx.unscored) < len(ctx.labels)  # a row with an interactive episode
    section = Section("evidence", "Evidence before action", tables=[table] if shown else [], figures=figures)
    section.notes += notes_of(ctx.original_note("each evidence metric"), _uninvestigated_note(uninvestigated))
    return section


def _uninvestigated_note(labels: list[str]) -> str | None:
    if not labels:
        return None
    return (
        f"No scored V0-V3 episode in the original condition for {', '.join(labels)}: the evidence metrics "
        "measure an investigation, and a Legacy episode has none."
    )


BUDGETS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
THRESHOLDS = tuple(i / 20 for i in range(21))
CurveData = dict[str, dict[str, dict[str, Any]]]


def _curves(
    ctx: Context, by_case: Callable[[Iterable[Episode], Sequence[float]], dict[str, list[float]]], xs: Sequence[float]
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, tuple[list[float], list[float]]]], CurveData]:
    """Per protocol (V0-V3) and configuration: the mean over cases of `by_case`'s per-case curve, with
    pointwise case-bootstrap bands (all of a case's episodes and gates resampled together)."""
    curves: dict[str, dict[str, list[float]]] = {}
    bands: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    data: CurveData = {}
    every = {x: by_case(ctx.original[x], xs) for x in ctx.labels}  # one pass each; a case is of one protocol
    for protocol in INTERACTIVE_NAMES:
        for x in ctx.labels:
            values = {k: v for k, v in every[x].items() if ctx.protocol_of.get(k) == protocol}
            if not values:
                continue
            share, low, high = ctx.boot.curve(values, len(xs))
            curves.setdefault(protocol, {})[x] = share
            bands.setdefault(protocol, {})[x] = (low, high)
            data.setdefault(protocol, {})[x] = {"cases": len(values), "share": share, "low": low, "high": high}
    return curves, bands, data
