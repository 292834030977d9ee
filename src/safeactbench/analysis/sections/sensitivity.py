"""Harness sensitivity (STUDY F-harness-sensitivity): does a model's response to withheld or
contradicted evidence depend on the harness? For each compared pair (A = a model's other harness,
B = its Inspect run), per protocol and condition, on the cases both played in both conditions."""

from __future__ import annotations

from typing import Any

from ...suite.interventions import STOP_TWINS
from ..effort_metrics import mean_over
from ..formatting import ci_text, excludes_zero, iv_json, pct, points
from ..intervention_metrics import action_by_case
from ..metrics import ORIGINAL
from ..structure import Cell, Section, Table
from .context import Context

PROTOCOLS = ("V1", "V2", "V3")
COLUMNS = ["Pair (A − B)", "Protocol", "Condition", "Cases", "P(action) A: original → condition (%)",
           "Reduction A [95% CI]", "P(action) B: original → condition (%)", "Reduction B [95% CI]",
           "B − A", "95% CI"]  # fmt: skip


def sensitivity_section(ctx: Context) -> Section:
    section = Section(
        "sensitivity",
        "Harness sensitivity",
        intro="For each compared pair (A − B; by default a model's other harness against its Inspect run): the "
        "reduction in action probability from original to each evidence condition, P(action | original) − "
        "P(action | condition), in points, under each harness, and B − A, the difference of the reductions; "
        "paired case-bootstrap intervals on the cases both configurations completed in both conditions "
        "(missing episodes left out; an invalid output is not a refusal: only a consequential attempt is an action).",
    )
    keys: list[tuple[int, str, str]] = []
    values: list[tuple[dict[str, float], dict[str, float]]] = []
    cells: dict[tuple[int, str, str], dict[str, Any]] = {}
    for index, (a, b) in enumerate(ctx.pairs):
        records = {c.label: c.scored(None) for c in (a, b)}
        for protocol in PROTOCOLS:
            for condition in STOP_TWINS:
                acts = {
                    # a stop twin is played as a stop case: its protocol is the original case's
                    (label, cond): action_by_case((r for r in rs if ctx.protocol_of.get(r.case_id) == protocol), cond)
                    for label, rs in records.items()
                    for cond in (ORIGINAL, condition)
                }
                common = set.intersection(*(set(v) for v in acts.values()))
                if not common:
                    continue
                reduction = {
                    label: {k: acts[(label, ORIGINAL)][k] - acts[(label, condition)][k] for k in common}
                    for label in records
                }
                zero = dict.fromkeys(common, 0.0)
                key = (index, protocol, condition)
                keys.append(key)
                # reduction A, reduction B, and B - A, each as a paired difference
                values += [
                    (reduction[a.label], zero),
                    (reduction[b.label], zero),
                    (reduction[b.label], reduction[a.label]),
                ]
                sides = (("a", a.label), ("b", b.label))
                action = {side: {cond: mean_over(acts[(label, cond)], common) for cond in (ORIGINAL, condition)}
                          for side, label in sides}  # fmt: skip
                cells[key] = {"cases": len(common), "action": action}
    deltas = [d.scaled(100.0) for d in ctx.boot.paired_deltas(values)] if values else []
    rows = []
    data = []
    for i, key in enumerate(keys):
        index, protocol, condition = key
        a, b = ctx.pairs[index]
        red_a, red_b, difference = deltas[3 * i : 3 * i + 3]
        action = cells[key]["action"]
        rows.append(
            [
                Cell(f"{a.label} − {b.label}"),
                Cell(protocol),
                Cell(condition),
                Cell(str(cells[key]["cases"])),
                Cell(f"{pct(action['a'][ORIGINAL])} → {pct(action['a'][condition])}"),
                Cell(f"{points(red_a.estimate)} {ci_text(red_a, 1.0, signed=True)}"),
                Cell(f"{pct(action['b'][ORIGINAL])} → {pct(action['b'][condition])}"),
                Cell(f"{points(red_b.estimate)} {ci_text(red_b, 1.0, signed=True)}"),
                Cell(points(difference.estimate), "best" if excludes_zero(difference) else None),
                Cell(ci_text(difference, 1.0, signed=True), "best" if excludes_zero(difference) else None),
            ]
        )
        data.append(
            {
                "a": a.label,
                "b": b.label,
                "protocol": protocol,
                "condition": condition,
                "cases": cells[key]["cases"],
                "action_probability": action,
                "reduction_a_points": iv_json(red_a),
                "reduction_b_points": iv_json(red_b),
                "b_minus_a_points": iv_json(difference),
                "ci_excludes_zero": excludes_zero(difference),
            }
        )
    ctx.data["sensitivity"] = data
    if not rows:
        section.notes.append(_empty_note(ctx))
        return section
    section.tables.append(
        Table(
            "sensitivity-table",
            "Reduction in action probability under each harness (points)",
            COLUMNS,
            rows,
            "Bold: the interval of B − A excludes 0 (the harnesses respond differently to the evidence).",
            text_columns=(0, 1, 2, 4, 5, 6, 7),
        )
    )
    return section


def _empty_note(ctx: Context) -> str:
    """Why no pair has a row: no pair played the evidence conditions, or none on common original cases."""
    twins = set(STOP_TWINS)
    if not any(twins & set(a.conditions) and twins & set(b.conditions) for a, b in ctx.pairs):
        return (
            "Needs a compared pair whose both configurations played the evidence conditions: run one model "
            "under two harnesses with --condition original,withheld,contradicted."
        )
    return (
        "No compared pair completed the same V1-V3 case both in the original condition and in withheld or "
        "contradicted under each configuration: no reduction to compare (play both with --condition "
        "original,withheld,contradicted)."
    )
