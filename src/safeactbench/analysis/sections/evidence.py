"""Evidence before action: PAR, CAS, BSR, investigation completion, query cost and coverage CDFs."""

from __future__ import annotations

import numpy as np

from .. import figures as fig
from ..formatting import DASH, rate_json, rate_text
from ..metrics import (
    INTERACTIVE_NAMES,
    blind_stop_rate,
    conditional_action_success,
    coverage_points,
    investigation_completion,
    premature_action_rate,
    query_costs,
)
from ..structure import Cell, Figure, Section, Table
from .context import Context


def evidence_section(ctx: Context) -> Section:
    rows = []
    data = {}
    for x in ctx.labels:
        rs = ctx.original[x]
        par, cas = premature_action_rate(rs), conditional_action_success(rs)
        bsr, ic = blind_stop_rate(rs), investigation_completion(rs)
        costs = query_costs(rs)
        median_cost = float(np.median(costs)) if costs else None
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
    coverage = {x: coverage_points(ctx.original[x]) for x in ctx.labels}
    panels = {
        p: {x: coverage[x].get(p, []) for x in ctx.labels}
        for p in INTERACTIVE_NAMES
        if any(coverage[x].get(p) for x in ctx.labels)
    }
    figures = []
    if panels:
        figures.append(
            Figure(
                "coverage_cdf",
                "Required-read coverage at the decision points",
                "Empirical CDF of the share of required reads established at the V0 stop, the V1 first attempt "
                "and each V2/V3 action gate. Lower curves = more coverage.",
                fig.cdf_panels(panels, "coverage", "Coverage at the decision points", (0.0, 1.0), ctx.colours),
            )
        )
    all_costs = {x: query_costs(ctx.original[x]) for x in ctx.labels}
    if any(all_costs.values()):
        figures.append(
            Figure(
                "query_cost_cdf",
                "Normalised query cost",
                "Empirical CDF over V0-V3 episodes of information calls / required reads "
                "(1 = exactly as many reads as required).",
                fig.cdf_panels(
                    {"V0-V3": all_costs}, "information calls / required reads", "Query cost", None, ctx.colours
                ),
            )
        )
    return Section("evidence", "Evidence before action", tables=[table], figures=figures)
