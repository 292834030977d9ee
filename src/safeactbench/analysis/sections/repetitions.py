"""Repetitions: per-run ECS, mean ± SD over runs and pass^k of each configuration, and the paired Δ
between compared configurations within each repetition."""

from __future__ import annotations

import statistics

from ..formatting import DASH, ci_text, iv_json, pct, points
from ..metrics import repetitions
from ..structure import Cell, Section, Table
from .context import Context


def repetitions_section(ctx: Context) -> Section:
    section = Section(
        "repetitions",
        "Repetitions",
        intro="Each (run directory, repetition) of a configuration is one run: its ECS, the mean ± sample SD "
        "over runs, and pass^k = the probability that k repetitions of a case all succeed (unbiased estimator "
        "C(c,k)/C(n,k) per case, averaged over cases with at least k repetitions); all on the cases every run "
        "of the configuration covered (original condition).",
    )
    found = [(c, repetitions(c.replicates())) for c in ctx.configs]
    found = [(c, r) for c, r in found if len(r.runs) >= 2]
    ctx.data["repetitions"] = {
        c.label: {"runs": dict(r.runs), "mean": r.mean, "sd": r.sd, "pass_k": r.pass_k, "cases": r.cases}
        for c, r in found
    }
    if not found:
        section.notes.append(_single_note(ctx))
        ctx.data["repetition_deltas"] = []  # a pair's per-repetition Δ needs two replicates of each side
        return section
    max_k = max(max(r.pass_k) for _, r in found)
    rows = []
    for c, r in found:
        per_run = ", ".join(f"{100 * v:.1f}" for _, v in r.runs)
        mean_sd = f"{pct(r.mean)} ± {pct(r.sd)}"
        rows.append(
            [
                Cell(c.label),
                Cell(str(len(r.runs))),
                Cell(str(r.cases)),
                Cell(per_run),
                Cell(mean_sd),
                *(Cell(pct(r.pass_k.get(k))) for k in range(1, max_k + 1)),
            ]
        )
    section.tables.append(
        Table(
            "repetitions-table",
            "ECS over repeated runs (%)",
            [
                "Configuration",
                "Runs",
                "Common cases",
                "Per-run ECS",
                "Mean ± SD",
                *(f"pass^{k}" for k in range(1, max_k + 1)),
            ],
            rows,
        )
    )
    _per_repetition_deltas(ctx, section)
    return section


def _single_note(ctx: Context) -> str:
    """Why no configuration has two runs to compare: one run each, or runs without a scored original."""
    several = [c.label for c in ctx.configs if sum(len({r.repetition for r in run.records}) for run in c.runs) > 1]
    if not several:
        return "Every configuration has a single run (use --repeat N or several run directories)."
    return (
        f"{', '.join(several)} ran more than once, but not twice with a scored episode in the original condition, "
        "where repetitions are compared."
    )


def _per_repetition_deltas(ctx: Context, section: Section) -> None:
    """STUDY T-reps: for each compared pair, Δ ECS = A - B within the k-th replicate of each (R1, R2, ...)
    on the interactive cases both replicates scored, with its case-paired interval; mean ± SD over them."""
    rows = []
    data = []
    for config_a, config_b in ctx.pairs:
        reps_a, reps_b = config_a.replicates(), config_b.replicates()
        if min(len(reps_a), len(reps_b)) < 2:
            continue
        scores = [
            ({k: float(v) for k, v in a.items() if ctx.protocol_of.get(k) != "Legacy"},
             {k: float(v) for k, v in b.items() if ctx.protocol_of.get(k) != "Legacy"})
            for (_, a), (_, b) in zip(reps_a, reps_b, strict=False)
        ]  # fmt: skip
        deltas = [d.scaled(100.0) for d in ctx.boot.paired_deltas(scores)]
        for k, ((a, b), delta) in enumerate(zip(scores, deltas, strict=True), start=1):
            common = set(a) & set(b)
            ecs_a = sum(a[c] for c in common) / len(common) if common else None
            ecs_b = sum(b[c] for c in common) / len(common) if common else None
            rows.append(
                [
                    Cell(f"{config_a.label} − {config_b.label}"),
                    Cell(f"R{k}"),
                    Cell(str(len(common))),
                    Cell(pct(ecs_a)),
                    Cell(pct(ecs_b)),
                    Cell(points(delta.estimate)),
                    Cell(ci_text(delta, 1.0, signed=True)),
                ]
            )
        estimates = [d.estimate for d in deltas if d.estimate is not None]
        mean = statistics.fmean(estimates) if estimates else None
        sd = statistics.stdev(estimates) if len(estimates) >= 2 else None
        rows.append(
            [Cell(f"{config_a.label} − {config_b.label}"), Cell("mean ± SD"), Cell(DASH), Cell(DASH), Cell(DASH),
             Cell(DASH if mean is None else f"{mean:+.1f} ± {DASH if sd is None else f'{sd:.1f}'}"), Cell(DASH)]
        )  # fmt: skip
        data.append({"a": config_a.label, "b": config_b.label, "deltas_points": [iv_json(d) for d in deltas],
                     "mean": mean, "sd": sd})  # fmt: skip
    ctx.data["repetition_deltas"] = data
    if rows:
        section.tables.append(
            Table(
                "repetition-deltas-table",
                "Paired Δ ECS per repetition (interactive cases, points)",
                ["Pair (A − B)", "Repetition", "Common cases", "ECS A (%)", "ECS B (%)", "Δ ECS", "95% CI"],
                rows,
                "The k-th replicate of A against the k-th of B; each Δ with its case-paired bootstrap interval.",
                text_columns=(0, 1),
            )
        )
