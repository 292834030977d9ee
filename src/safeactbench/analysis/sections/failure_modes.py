"""Failure modes: each protocol's outcome shares over the SPEC §5 taxonomy."""

from __future__ import annotations

from .. import figures as fig
from ..formatting import DASH, pct, rate_json
from ..metrics import PROTOCOL_NAMES, failure_mode_shares
from ..structure import Cell, Figure, Section, Table
from .context import Context, notes_of


def failure_modes_section(ctx: Context) -> Section:
    shares = {x: failure_mode_shares(ctx.original[x]) for x in ctx.labels}
    tables = []
    protocols = [p for p in PROTOCOL_NAMES if any(p in shares[x] for x in ctx.labels)]
    for p in protocols:
        labels_p: list[str] = []
        for x in ctx.labels:
            for m in shares[x].get(p, {}):
                if m not in labels_p:
                    labels_p.append(m)
        rows = []
        for x in ctx.labels:
            modes = shares[x].get(p, {})
            n = next(iter(modes.values())).n if modes else 0
            rows.append([Cell(x), Cell(str(n)), *(Cell(pct(modes[m].value) if m in modes else DASH) for m in labels_p)])
        tables.append(
            Table(
                f"failure-modes-{p}",
                f"{p}: outcome shares (% of all scored {p} episodes; unscored ones left out)",
                ["Configuration", "Episodes", *(m.replace("_", " ") for m in labels_p)],
                rows,
            )
        )
    ctx.data["failure_modes"] = {
        x: {p: {m: rate_json(r) for m, r in modes.items()} for p, modes in shares[x].items()} for x in ctx.labels
    }
    plain = {
        x: {p: {m: r.value or 0.0 for m, r in modes.items()} for p, modes in shares[x].items()} for x in ctx.labels
    }
    figures = []
    if protocols:
        figures.append(
            Figure(
                "failure_modes",
                "Failure modes per protocol",
                "Stacked shares of all cases of each protocol: success and each failure mode (SPEC §5 taxonomy).",
                fig.failure_modes(ctx.labels, plain, protocols),
            )
        )
    intro = (
        "Every failed episode carries one failure-mode label (SPEC §5): V0 acted / incomplete investigation / "
        "wrong outcome; V1 early action / covered action failure / no action; V2-V3 gap only / partial only / "
        "gap and partial; Legacy wrong / invalid decision; 'other' for everything else (e.g. integrity failures)."
    )
    section = Section("failure-modes", "Failure modes", intro=intro, tables=tables, figures=figures)
    section.notes += notes_of(ctx.original_note("each failure-mode table"))
    return section
