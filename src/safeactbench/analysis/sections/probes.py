"""Probes and retrieval under distractors (STUDY F-probes (b, c), F-retrieval): each probe condition
against the condition it varies — a distractor-augmented package against the package, every other
probe against withheld, distractors against the original — and the information calls spent with and
without distractors. V1 cases, as the interventions section."""

from __future__ import annotations

from typing import Any

from .. import figures as fig
from ..effort_metrics import mean_over
from ..formatting import ci_text, excludes_zero, iv_json, pct, points
from ..intervention_metrics import action_by_case, info_calls_by_case
from ..metrics import ORIGINAL
from ..runs import case_in, condition_in
from ..stats import Bootstrap
from ..structure import Cell, Figure, Section, Table
from .context import Context
from .interventions import v1_cases

# probe -> the condition it is compared with (STUDY F-probes (b))
BASELINE = {
    "evidence_package": "withheld",
    "requester_claim": "withheld",
    "urgency": "withheld",
    "explicit_warning": "withheld",
    "withheld+distractors": "withheld",
    "package+distractors": "evidence_package",
    "distractors": ORIGINAL,
}
RETRIEVAL = ("original", "distractors", "withheld", "withheld+distractors", "evidence_package", "package+distractors")
COLUMNS = ["Configuration", "Probe", "Compared with", "Cases", "P(action): probe vs base (%)", "Δ action (points)",
           "95% CI", "Info calls: probe vs base", "Δ info calls", "95% CI "]  # fmt: skip


def probes_section(ctx: Context) -> Section | None:
    per_config = {}
    v1 = v1_cases(ctx)
    for c in ctx.configs:
        records = c.scored(None).where(case_in(v1))
        conditions = {r.condition for r in records}
        if not conditions & set(BASELINE):
            continue
        per_config[c.label] = {
            cond: (action_by_case(records, cond), info_calls_by_case(r for r in records if r.condition == cond))
            for cond in conditions
        }
    if not per_config:
        return None
    keys = [(x, probe) for x, conds in per_config.items() for probe, base in BASELINE.items()
            if probe in conds and base in conds]  # fmt: skip
    matched = {key: set(per_config[key[0]][key[1]][0]) & set(per_config[key[0]][BASELINE[key[1]]][0]) for key in keys}

    def on(values: dict[str, float], cases: set[str]) -> dict[str, float]:
        return {k: v for k, v in values.items() if k in cases}

    pairs = []
    for x, probe in keys:
        cases, base = matched[(x, probe)], BASELINE[probe]
        pairs.append((on(per_config[x][probe][0], cases), on(per_config[x][base][0], cases)))
        pairs.append((on(per_config[x][probe][1], cases), on(per_config[x][base][1], cases)))
    # a probe case need not have been scored in the original condition (the shared bootstrap's cases)
    boot = ctx.bootstrap_for(k for x, conds in per_config.items() for values in conds.values() for k in values[1])
    deltas = boot.paired_deltas(pairs) if pairs else []
    rows = []
    data: dict[str, Any] = {}
    for i, (x, probe) in enumerate(keys):
        cases, base = matched[(x, probe)], BASELINE[probe]
        action, calls = deltas[2 * i].scaled(100.0), deltas[2 * i + 1]
        mean = {cond: [mean_over(per_config[x][cond][j], cases) for j in (0, 1)] for cond in (probe, base)}
        clear = "best" if excludes_zero(action) else None
        rows.append(
            [
                Cell(x, colour=ctx.colours[x]),
                Cell(probe),
                Cell(base),
                Cell(str(len(cases))),
                Cell(f"{pct(mean[probe][0])} vs {pct(mean[base][0])}"),
                Cell(points(action.estimate), clear),
                Cell(ci_text(action, 1.0, signed=True), clear),
                Cell(f"{_calls(mean[probe][1])} vs {_calls(mean[base][1])}"),
                Cell(points(calls.estimate)),
                Cell(ci_text(calls, 1.0, signed=True)),
            ]
        )
        data.setdefault(x, {})[probe] = {
            "baseline": base,
            "cases": len(cases),
            "action_probability": {probe: mean[probe][0], base: mean[base][0]},
            "delta_action_points": iv_json(action),
            "mean_info_calls": {probe: mean[probe][1], base: mean[base][1]},
            "delta_info_calls": iv_json(calls),
        }
    ctx.data["probes"] = data
    section = Section(
        "probes",
        "Probes and retrieval under distractors",
        intro="Each probe condition against the condition it varies (STUDY F-probes): a distractor-augmented "
        "package against the package, distractors against the original, every other probe against withheld; on "
        "the V1 cases completed under both, with paired case-bootstrap intervals. Bold: the interval of the "
        "change in action probability excludes 0.",
    )
    if rows:
        section.tables.append(Table("probes-table", "Probe comparisons", COLUMNS, rows, text_columns=(0, 1, 2, 4, 7)))
    else:
        wanted = ", ".join(f"{probe} beside {base}" for probe, base in BASELINE.items())
        section.notes.append(
            f"No probe was completed on a V1 case beside the condition it is compared with ({wanted})."
        )
    retrieval, bands = _retrieval_curves(ctx, per_config, boot)
    if retrieval:
        section.figures.append(
            Figure(
                "retrieval_distractors",
                "Retrieval with and without distractors",
                "Cumulative share of cases using at most k information calls (a case: the share of its episodes), "
                "on the cases completed under every condition shown, under original and withheld evidence and "
                "the evidence package, each with and without distractors; pointwise 95% case-bootstrap bands.",
                fig.curves(
                    retrieval,
                    "information calls k",
                    "share of cases with ≤ k calls",
                    "Retrieval effort",
                    fig.configuration_colours(RETRIEVAL),
                    bands,
                ),
            )
        )
    return section


def _retrieval_curves(
    ctx: Context, per_config: dict[str, dict[str, tuple[dict[str, float], dict[str, float]]]], boot: Bootstrap
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, tuple[list[float], list[float]]]]]:
    """STUDY F-retrieval: per configuration that played a distractor condition, per condition of
    RETRIEVAL it played, the share of matched cases whose episodes used at most k information calls."""
    curves: dict[str, dict[str, list[float]]] = {}
    bands: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    v1 = v1_cases(ctx)
    for c in ctx.configs:
        shown = [cond for cond in RETRIEVAL if cond in per_config.get(c.label, {})]
        if not any("distractors" in cond for cond in shown):
            continue
        records = c.scored(None).where(case_in(v1)).where(condition_in(*shown))
        common = set.intersection(*(set(per_config[c.label][cond][1]) for cond in shown))
        most = max((r.verdict.diagnostics.info_calls for r in records if r.verdict), default=0)
        for cond in shown:
            calls: dict[str, list[int]] = {}
            for r in records:
                if r.condition == cond and r.case_id in common and r.verdict:
                    calls.setdefault(r.case_id, []).append(r.verdict.diagnostics.info_calls)
            within = {k: [sum(n <= step for n in v) / len(v) for step in range(most + 1)] for k, v in calls.items()}
            share, low, high = boot.curve(within, most + 1)
            curves.setdefault(c.label, {})[cond] = share
            bands.setdefault(c.label, {})[cond] = (low, high)
    return curves, bands


def _calls(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
