"""Repetitions: per-run ECS, mean ± SD over runs and pass^k of each configuration."""

from __future__ import annotations

from ..formatting import pct
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
        section.notes.append("Every configuration has a single run (use --repeat N or several run directories).")
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
    return section
