"""Comparisons with paired bootstrap intervals: static accuracy vs interactive ECS on the same cases,
and pairs of configurations (each model's harnesses, or every pair) on their common cases."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import figures as fig
from ..formatting import ci_text, excludes_zero, iv_json, pct, points, rate_json, rate_text
from ..metrics import STATIC_CONDITIONS, investigation_completion
from ..runs import condition_in
from ..stats import static_gap, static_pairing
from ..structure import Cell, Figure, Section, Table
from .context import Context


def static_gap_section(ctx: Context) -> Section:
    rows = []
    data: dict[str, Any] = {}
    unpaired = []  # configurations with static renderings but none of the interactive episodes they render
    for c in ctx.configs:
        records = c.scored(None)
        units = {(r.case_id, r.condition) for r in records}
        pairs = [pair for pair in static_pairing(records, STATIC_CONDITIONS) if pair[1] in units]
        if not pairs:
            unpaired += [c.label] if any(cond in STATIC_CONDITIONS for _, cond in units) else []
            continue
        static_rs = records.where(condition_in(*STATIC_CONDITIONS))
        inter_rs = records.where(lambda r: r.condition not in STATIC_CONDITIONS)
        groups = [(f"{s} vs {i}", [p for p in pairs if p[0][1] == s]) for s, i in STATIC_CONDITIONS.items()]
        groups = [g for g in groups if g[1]] + [("all", pairs)]
        if len(groups) == 2:  # one condition pair: 'all' repeats it
            groups = groups[:1]
        data[c.label] = {}
        for name, subset in groups:
            gap = static_gap(static_rs, inter_rs, subset, ctx.resamples, ctx.seed, ctx.level)
            rows.append(
                [
                    Cell(c.label),
                    Cell(name),
                    Cell(str(gap.pairs)),
                    Cell(pct(gap.static_accuracy)),
                    Cell(pct(gap.interactive_ecs)),
                    Cell(points(gap.gap.estimate)),
                    Cell(ci_text(gap.gap, 1.0, signed=True)),
                ]
            )
            data[c.label][name] = {
                "pairs": gap.pairs,
                "static_accuracy": gap.static_accuracy,
                "interactive_ecs": gap.interactive_ecs,
                "gap_points": iv_json(gap.gap),
            }
    ctx.data["static_gap"] = data
    intro = (
        "Static accuracy (the Legacy form of a case: candidate action + evidence package, ALLOW/BLOCK/DEFER) "
        "minus interactive ECS on the same cases, in points, with a 95% case-bootstrap interval. Static "
        "episodes are the conditions static / static_withheld / static_contradicted, paired with the same "
        "case played original / withheld / contradicted."
    )
    section = Section("static-gap", "Static vs interactive gap", intro=intro)
    if unpaired:
        rendered = ", ".join(f"{s} ↔ {i}" for s, i in STATIC_CONDITIONS.items())
        section.notes.append(
            f"{', '.join(unpaired)} played static renderings but not the interactive episodes they render "
            f"({rendered}): no gap to measure."
        )
    if rows:
        section.tables.append(
            Table(
                "static-gap-table",
                "Static accuracy - interactive ECS",
                [
                    "Configuration",
                    "Pairing",
                    "Cases",
                    "Static accuracy (%)",
                    "Interactive ECS (%)",
                    "Gap (points)",
                    "95% CI",
                ],
                rows,
                text_columns=(0, 1),
            )
        )
    elif not unpaired:
        section.notes.append(
            "No run contains static renderings of its interactive cases (run with "
            "--condition original,static,... to measure the gap)."
        )
    return section


def paired_section(ctx: Context) -> Section:
    by_harness = ctx.pair_mode == "harness"
    which = (
        "each model's harnesses against its Inspect configuration (the study's harness comparison; "
        "`report --pairs all` compares every pair)"
        if by_harness
        else "every pair of configurations"
    )
    section = Section(
        "paired",
        "Paired comparisons",
        intro=f"Δ ECS = ECS(A) - ECS(B) in points, {which}, on the interactive cases (V0-V3) both ran "
        "(original condition; Legacy is a static judgement, compared in its own section), with a 95% "
        f"case-paired bootstrap interval ({ctx.resamples:,} resamples, seed {ctx.seed}). Bold: the interval "
        "excludes 0.",
    )
    if not ctx.pairs:
        section.notes.append(
            "No model was run under two harnesses: run one model through two harnesses (e.g. its family CLI "
            "and --harness inspect), or compare every pair with `report --pairs all`."
            if by_harness and len(ctx.configs) > 1
            else "A paired comparison needs at least two configurations."
        )
        ctx.data["paired"] = []
        return section
    # the study pairs the interactive cases (STUDY T-harness): Legacy has no trajectory to compare
    scores = {
        label: {k: v for k, v in ctx.case_scores[label].items() if ctx.protocol_of.get(k) != "Legacy"}
        for label in ctx.labels
    }
    deltas = ctx.boot.paired_deltas([(scores[a.label], scores[b.label]) for a, b in ctx.pairs])
    rows = []
    data = []
    forest_rows = []
    for (config_a, config_b), delta in zip(ctx.pairs, deltas, strict=True):
        a, b = config_a.label, config_b.label
        common = set(scores[a]) & set(scores[b])
        ecs_a = np.mean([scores[a][k] for k in common]) if common else None
        ecs_b = np.mean([scores[b][k] for k in common]) if common else None
        ic_a = investigation_completion(r for r in ctx.original[a] if r.case_id in common)
        ic_b = investigation_completion(r for r in ctx.original[b] if r.case_id in common)
        d = delta.scaled(100.0)
        clear = excludes_zero(d)
        mark = "best" if clear else None
        names = (
            [Cell(config_a.model), Cell(config_a.harness), Cell(config_b.harness)] if by_harness else [Cell(a), Cell(b)]
        )
        rows.append(
            [
                *names,
                Cell(str(len(common))),
                Cell(pct(None if ecs_a is None else float(ecs_a))),
                Cell(pct(None if ecs_b is None else float(ecs_b))),
                Cell(points(d.estimate), mark),
                Cell(ci_text(d, 1.0, signed=True), mark),
                Cell(rate_text(ic_a)),
                Cell(rate_text(ic_b)),
            ]
        )
        data.append(
            {
                "a": a,
                "b": b,
                "model": config_a.model if by_harness else None,
                "common_cases": len(common),
                "delta_points": iv_json(d),
                "ci_excludes_zero": clear,
                "investigation_completion": {"a": rate_json(ic_a), "b": rate_json(ic_b)},
            }
        )
        name = f"{config_a.model}: {config_a.harness} − {config_b.harness}" if by_harness else f"{a} − {b}"
        forest_rows.append((name, d.estimate, d.low, d.high))
    ctx.data["paired"] = data
    disjoint = [
        f"{a.label} − {b.label}" for (a, b), item in zip(ctx.pairs, data, strict=True) if not item["common_cases"]
    ]
    if disjoint:
        section.notes.append(
            f"No interactive case scored by both configurations in the original condition: {'; '.join(disjoint)} "
            "(–: nothing to compare)."
        )
    heads = ["Model", "Harness A", "Harness B"] if by_harness else ["A", "B"]
    section.tables.append(
        Table(
            "paired-table",
            "Paired comparisons on common interactive cases",
            [
                *heads,
                "Common cases",
                "ECS A (%)",
                "ECS B (%)",
                "Δ ECS (points)",
                "95% CI",
                "Inv. completion A (%)",
                "Inv. completion B (%)",
            ],
            rows,
            text_columns=tuple(range(len(heads))),
        )
    )
    if any(row[1] is not None for row in forest_rows):
        section.figures.append(
            Figure(
                "paired_deltas",
                "Paired Δ ECS",
                "Δ ECS (points) with 95% case-paired bootstrap intervals; the dashed line is no difference.",
                fig.forest(forest_rows, "Paired Δ ECS", "Δ ECS (points)"),
            )
        )
    return section
