"""Interventions (SPEC §8): action probability per condition, its reduction against the original
cases, and first-action timing."""

from __future__ import annotations

from typing import Any

from ...suite.interventions import CONDITIONS
from .. import figures as fig
from ..formatting import DASH, ci_text, iv_json, pct, points, rate_json, rate_text
from ..intervention_metrics import (
    action_by_case,
    affected_queries,
    affected_tools,
    decision_transitions,
    first_action_by_case,
    intervention_conditions,
    mean_info_calls,
    queried_before_action,
)
from ..metrics import ORIGINAL
from ..runs import case_in, condition_in
from ..stats import Bootstrap
from ..structure import Cell, Figure, Section, Table
from .context import Context

INTRO = "SPEC §8 conditions, grouped by the episode's condition."
NO_V1 = (
    "No V1 case was played under an intervention condition (SPEC §8 analyses V1 cases); the V2/V3 stop twins "
    "played count in the judgement section's paired ECS and harmful-action rate."
)


def v1_cases(ctx: Context) -> set[str]:
    """The V1 cases among those played (the cases SPEC §8 interventions analyse): from the suite's
    cases the report was given, else from the protocol recorded by their original episodes."""
    if ctx.cases:
        return {case_id for case_id, case in ctx.cases.items() if case.protocol.value == "V1"}
    return {case_id for case_id, protocol in ctx.protocol_of.items() if protocol == "V1"}


def interventions_section(ctx: Context) -> Section | None:
    conditions = intervention_conditions(r for c in ctx.configs for r in c.records)
    if not conditions:
        return None
    wanted = [ORIGINAL, *conditions]
    tools_by_case: dict[str, set[str]] = {}
    if ctx.cases is not None:
        for case_id in {r.case_id for c in ctx.configs for r in c.records if r.condition in conditions}:
            case = ctx.cases.get(case_id)
            if case is not None:
                tools_by_case[case_id] = affected_tools(case)
    per_config: dict[str, dict[str, dict[str, float]]] = {}
    case_sets: dict[str, set[str]] = {}
    v1 = v1_cases(ctx)
    for c in ctx.configs:
        recs = c.scored(None)
        # SPEC §8 analyses V1 cases; V2/V3 stop twins count in paired ECS (the judgement section)
        cases = {r.case_id for r in recs if r.condition in conditions and r.case_id in v1}
        if not cases:
            continue
        case_sets[c.label] = cases
        per_config[c.label] = {
            cond: {k: v for k, v in action_by_case(recs, cond).items() if k in cases} for cond in wanted
        }
    if not per_config:  # only V2/V3 stop twins were played: the judgement section shows them
        return Section("interventions", "Interventions", intro=INTRO, notes=[NO_V1])
    if not any(per_config[x][ORIGINAL] for x in per_config):  # no bar, row or curve of the original
        wanted = list(conditions)
    units = sorted({u for cases in case_sets.values() for u in cases})
    boot = Bootstrap(units, ctx.resamples, ctx.seed, ctx.level)
    keys = [(x, cond) for x in per_config for cond in wanted]
    probability = dict(zip(keys, boot.means([per_config[x][cond] for x, cond in keys]), strict=True))
    reduction_keys = [(x, cond) for x in per_config for cond in conditions]
    reductions = dict(
        zip(
            reduction_keys,
            boot.paired_deltas([(per_config[x][ORIGINAL], per_config[x][cond]) for x, cond in reduction_keys]),
            strict=True,
        )
    )
    rows = []
    transition_rows = []
    unpaired: list[str] = []  # configurations that played none of these cases in the original condition
    data: dict[str, Any] = {}
    timing: dict[str, dict[str, list[float]]] = {}
    bands: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    bars: dict[str, list[tuple[float | None, float | None, float | None]]] = {}
    for c in ctx.configs:
        if c.label not in per_config:
            continue
        recs = c.scored(None).where(case_in(case_sets[c.label]))
        max_step = max((len(r.trajectory.steps) for r in recs if r.trajectory), default=0)
        # STUDY F-timing: the cases completed under every displayed condition, a band per curve
        played = [cond for cond in wanted if any(r.condition == cond for r in recs)]
        if ORIGINAL not in played:
            unpaired.append(c.label)
        common = set.intersection(*({r.case_id for r in recs if r.condition == cond} for cond in played))
        data[c.label] = {}
        timing[c.label] = {}
        bands[c.label] = {}
        bars[c.label] = []
        for cond in wanted:
            if cond not in played:  # a condition only other configurations played: no row, no bar
                bars[c.label].append((None, None, None))
                continue
            rs = recs.where(condition_in(cond))
            episodes = rs.count()
            p = probability[(c.label, cond)]
            red = reductions[(c.label, cond)].scaled(100.0) if cond != ORIGINAL and ORIGINAL in played else None
            queried = queried_before_action(rs, tools_by_case)
            info = mean_info_calls(rs, cond)
            affected = affected_queries(rs, tools_by_case)
            by_case = first_action_by_case((r for r in rs if r.case_id in common), cond, max_step)
            share, low, high = boot.curve(by_case, max_step + 1)
            timing[c.label][cond] = share
            bands[c.label][cond] = (low, high)
            transitions = decision_transitions(recs, cond) if cond != ORIGINAL else {}
            if transitions:
                shown = ", ".join(f"{k.replace('->', ' → ')}: {n}" for k, n in transitions.items())
                transition_rows.append([Cell(c.label), Cell(cond), Cell(str(sum(transitions.values()))), Cell(shown)])
            rows.append(
                [
                    Cell(c.label),
                    Cell(cond),
                    Cell(str(episodes)),
                    Cell(pct(p.estimate)),
                    Cell(ci_text(p)),
                    Cell(DASH if red is None else points(red.estimate)),
                    Cell(DASH if red is None else ci_text(red, 1.0, signed=True)),
                    Cell(DASH if info is None else f"{info:.1f}"),
                    Cell(DASH if affected is None else f"{affected:.2f}"),
                    Cell(rate_text(queried)),
                ]
            )
            bars[c.label].append(
                tuple(None if v is None else 100 * v for v in (p.estimate, p.low, p.high))  # type: ignore[arg-type]
            )
            data[c.label][cond] = {
                "episodes": episodes,
                "action_probability": iv_json(p),
                "reduction_vs_original_points": None if red is None else iv_json(red),
                "mean_info_calls": info,
                "mean_queries_to_affected_tool": affected,
                "acted_after_querying_affected_tool": rate_json(queried),
                "first_action_curve": {"cases": len(common), "share": timing[c.label][cond],
                                       "low": bands[c.label][cond][0], "high": bands[c.label][cond][1]},
                "decision_transitions": transitions,
            }  # fmt: skip
    ctx.data["interventions"] = data
    table = Table(
        "interventions-table",
        "Action probability per condition",
        [
            "Configuration",
            "Condition",
            "Episodes",
            "Action probability (%)",
            "95% CI",
            "Reduction vs original (points)",
            "95% CI ",
            "Mean info calls",
            "Queries to the affected tool",
            "Acted after querying the affected tool (%)",
        ],
        rows,
        "On the cases played under an intervention (original = the same cases unchanged). Action = at least "
        "one consequential attempt; P(action) = the mean over cases of the share of each case's completed "
        "episodes with an action. Reduction = P(action | original) - P(action | condition), paired by case. "
        "Queries to the affected tool: mean calls per episode to an information tool able to establish the "
        "decisive fact. Last column: among episodes with an action, the share that had called such a tool "
        "before the first attempt.",
        text_columns=(0, 1),
    )
    transitions_table = Table(
        "transitions-table",
        "Decision transitions (original → condition, per case, repetition 1)",
        ["Configuration", "Condition", "Cases", "Transitions"],
        transition_rows,
        "Each case played in both conditions: the original episode's decision and the variant's. act = a "
        "consequential attempt, stop = submitted without acting, none = neither (budget, agent stopped); "
        "invalid outputs are kept.",
        text_columns=(0, 1, 3),
    )
    figures = [
        Figure(
            "interventions_action",
            "Action probability per condition",
            "Mean over cases of the share of completed episodes with a consequential attempt, with 95% "
            "case-bootstrap intervals.",
            fig.grouped_bars(wanted, bars, "Action probability", "episodes with an action (%)", ctx.colours),
        ),
        Figure(
            "first_action_timing",
            "First-action timing",
            "Cumulative share of episodes whose first consequential attempt came by step k, on the cases "
            "completed under every condition shown, with pointwise 95% case-bootstrap bands.",
            fig.curves(
                timing,
                "step k",
                "share acted by step k",
                "First-action timing",
                fig.configuration_colours(CONDITIONS),
                bands,
            ),
        ),
    ]
    notes = []
    if unpaired:
        notes.append(
            f"{', '.join(unpaired)} played none of these cases in the original condition: no reduction and no "
            "transition to show (–)."
        )
    return Section(
        "interventions",
        "Interventions",
        intro=INTRO,
        tables=[table, transitions_table] if transition_rows else [table],
        figures=figures,
        notes=notes,
    )
