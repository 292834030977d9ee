"""Runs and coverage, main results (ECS with case-bootstrap intervals, per protocol) and ECS by domain."""

from __future__ import annotations

from .. import figures as fig
from ..formatting import DASH, ci_text, iv_json, marked_column, pct, rate_json, transpose
from ..metrics import ORIGINAL, PROTOCOL_NAMES, main_row, run_coverage
from ..runs import condition_in
from ..structure import Cell, Figure, Section, Table
from .context import Context, notes_of


def coverage_section(ctx: Context) -> Section:
    rows = []
    data = []
    for run in ctx.runs:
        cov = run_coverage(run.records, run.planned)
        missing = ", ".join(f"{k}: {v}" for k, v in cov.missing.items()) or "none"
        conditions = sorted({r.condition for r in run.records}, key=lambda c: (c != ORIGINAL, c))
        reps = len({r.repetition for r in run.records})
        planned = DASH if cov.planned is None else str(cov.planned)
        rows.append(
            [
                Cell(run.name),
                Cell(run.config),
                Cell(f"{cov.completed} / {planned}"),
                Cell(pct(cov.share)),
                Cell(missing),
                Cell(", ".join(conditions) or DASH),
                Cell(str(reps)),
            ]
        )
        data.append(
            {
                "run": str(run.path),
                "configuration": run.config,
                "completed": cov.completed,
                "planned": cov.planned,
                "coverage": cov.share,
                "missing": cov.missing,
                "meta": run.meta,
            }
        )
    ctx.data["runs"] = data
    table = Table(
        "coverage-table",
        "Coverage of each run",
        ["Run", "Configuration", "Completed / planned", "Coverage (%)", "Missing by reason", "Conditions", "Reps"],
        rows,
        "Missing episodes are runtime failures (API error, crash, timeout): they are coverage, never scored "
        "as agent failures. The reason is the part of missing_reason before the first ':'.",
        text_columns=(0, 1, 4, 5),
    )
    section = Section("coverage", "Runs and coverage", tables=[table])
    if ctx.conditions != [ORIGINAL]:
        section.tables.append(_condition_coverage(ctx, ctx.conditions))
    return section


def _condition_coverage(ctx: Context, conditions: list[str]) -> Table:
    """STUDY T-coverage: per configuration and condition, completed / played episodes and the pairing
    denominator (cases completed both in the original and in the condition; none without an original)."""
    rows = []
    data: dict[str, dict[str, dict[str, int | None]]] = {}
    for c in ctx.configs:
        data[c.label] = {}
        completed_cases = {
            cond: {r.case_id for r in c.records if r.condition == cond and r.status == "completed"}
            for cond in conditions
        }
        played_original = ORIGINAL in c.conditions
        cells = []
        for cond in conditions:
            played = c.records.where(condition_in(cond))
            completed = sum(r.status == "completed" for r in played)
            n = played.count()
            # without an original episode nothing pairs: no count rather than 0
            paired = len(completed_cases[cond] & completed_cases[ORIGINAL]) if played_original else None
            data[c.label][cond] = {"played": n, "completed": completed, "paired_cases": paired}
            text = f"{completed} / {n}" + ("" if cond == ORIGINAL or paired is None else f" · {paired} paired")
            cells.append(Cell(text if n else DASH))
        rows.append([Cell(c.label, colour=ctx.colours[c.label]), *cells])
    ctx.data["condition_coverage"] = data
    note = (
        "Completed / played episodes per condition (missing = runtime failures; invalid outputs count as "
        "completed), and the cases completed both in the original and in the condition: the denominator of "
        "every paired comparison against the original."
    )
    unpaired = [c.label for c in ctx.configs if ORIGINAL not in c.conditions]
    if unpaired:
        note += f" No original episode was played by {', '.join(unpaired)}: nothing of it pairs with the original."
    return Table(
        "condition-coverage-table",
        "Completion per condition",
        ["Configuration", *conditions],
        rows,
        note,
        text_columns=tuple(range(len(conditions) + 1)),
    )


def main_section(ctx: Context) -> Section:
    labels = ctx.labels
    rows_by_label = {label: main_row(ctx.original[label]) for label in labels}
    # one bootstrap over every configuration's overall and per-protocol case scores
    groups = ["all", *PROTOCOL_NAMES]
    value_rows: list[dict[str, float]] = []
    for label in labels:
        scores = ctx.case_scores[label]
        value_rows.append(scores)
        for p in PROTOCOL_NAMES:
            value_rows.append({k: v for k, v in scores.items() if ctx.protocol_of.get(k) == p})
    intervals = ctx.boot.means(value_rows)
    iv = {(label, g): intervals[i * len(groups) + j] for i, label in enumerate(labels) for j, g in enumerate(groups)}

    ecs_values = [rows_by_label[x].ecs.value for x in labels]
    columns: list[list[Cell]] = [
        [Cell(x, colour=ctx.colours[x]) for x in labels],
        [Cell(str(rows_by_label[x].ecs.n)) for x in labels],
        marked_column(ecs_values, [pct(v) for v in ecs_values]),
        [Cell(ci_text(iv[(x, "all")])) for x in labels],
    ]
    for getter in (lambda r: r.protocol_macro, lambda r: r.domain_macro):
        values = [getter(rows_by_label[x]) for x in labels]
        columns.append(marked_column(values, [pct(v) for v in values]))
    for p in PROTOCOL_NAMES:
        values = [rows_by_label[x].by_protocol[p].value if p in rows_by_label[x].by_protocol else None for x in labels]
        columns.append(marked_column(values, [pct(v) for v in values]))
    table = Table(
        "main-table",
        "Exact case success (%)",
        ["Configuration", "Cases", "ECS", "95% CI", "P-M", "D-M", *PROTOCOL_NAMES],
        transpose(columns),
        "ECS = mean over cases of the share of the case's episodes with score 1 (original condition; "
        "the unit is the case, so ECS and its interval agree under repetitions or uneven coverage). "
        "P-M / D-M = unweighted mean of the protocol / domain ECS. 95% CI: case bootstrap. "
        "Best per column in bold, second best underlined.",
    )
    ctx.data["main"] = {
        x: {
            "ecs": rate_json(rows_by_label[x].ecs),
            "ecs_ci": iv_json(iv[(x, "all")]),
            "protocol_macro": rows_by_label[x].protocol_macro,
            "domain_macro": rows_by_label[x].domain_macro,
            "by_protocol": {
                p: {**(rate_json(r) or {}), "ci": iv_json(iv[(x, p)])} for p, r in rows_by_label[x].by_protocol.items()
            },
            "by_domain": {d: rate_json(r) for d, r in rows_by_label[x].by_domain.items()},
        }
        for x in labels
    }
    present = [p for p in PROTOCOL_NAMES if any(p in rows_by_label[x].by_protocol for x in labels)]
    series = {
        x: [
            tuple(None if v is None else 100 * v for v in (iv[(x, p)].estimate, iv[(x, p)].low, iv[(x, p)].high))
            for p in present
        ]
        for x in labels
    }
    # no scored original episode at all: no table of dashes, the note says why
    section = Section("main", "Main results", tables=[table] if present else [])
    if present:
        section.figures.append(
            Figure(
                "ecs_by_protocol",
                "ECS by protocol",
                "ECS per protocol and configuration with 95% case-bootstrap intervals.",
                fig.grouped_bars(present, series, "ECS by protocol", colours=ctx.colours),  # type: ignore[arg-type]
            )
        )
    section.notes += notes_of(ctx.original_note())
    return section


def domain_section(ctx: Context) -> Section:
    labels = ctx.labels
    rows_by_label = {label: main_row(ctx.original[label]) for label in labels}
    columns: list[list[Cell]] = [[Cell(x, colour=ctx.colours[x]) for x in labels]]
    for d in ctx.domains:
        values = [rows_by_label[x].by_domain[d].value if d in rows_by_label[x].by_domain else None for x in labels]
        columns.append(marked_column(values, [pct(v) for v in values]))
    dm = [rows_by_label[x].domain_macro for x in labels]
    columns.append(marked_column(dm, [pct(v) for v in dm]))
    table = Table(
        "domain-table",
        "ECS by domain (%)",
        ["Configuration", *ctx.domains, "D-M"],
        transpose(columns),
        "Original condition; best per column in bold, second best underlined.",
    )
    section = Section("domains", "ECS by domain", tables=[table] if ctx.domains else [])
    section.notes += notes_of(ctx.original_note("ECS by domain"))
    return section
