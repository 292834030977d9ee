"""What a configuration spends: the cost of running it (tokens, model calls, wall time) and its
retrieval effort (information calls per case, by protocol and outcome)."""

from __future__ import annotations

from typing import Any

from .. import figures as fig
from ..effort_metrics import TOKEN_KINDS, Cost, cost, costs
from ..formatting import DASH, ci_text, iv_json, pct
from ..intervention_metrics import info_calls_by_outcome
from ..metrics import INTERACTIVE_NAMES, PROTOCOL_NAMES
from ..structure import Cell, Figure, Section, Table
from .context import Context, notes_of

COST_COLUMNS = ["Configuration", "Episodes", "Input tokens / ep.", "Output tokens / ep.", "Model calls / ep.",
                "Wall time / ep. (s)", "Tokens (total)", "Wall time (total, min)", "ECS (%)"]  # fmt: skip
RETRIEVAL_COLUMNS = ["Configuration", "Protocol", "Cases", "Info calls / case", "95% CI", "On successes (cases)",
                     "On failures (cases)"]  # fmt: skip


def _number(value: float | None, decimals: int = 0) -> str:
    return DASH if value is None else f"{value:,.{decimals}f}"


def cost_section(ctx: Context) -> Section:
    section = Section(
        "cost",
        "Cost",
        intro="What running each configuration cost, from the recorded usage: every played episode counts "
        "(missing ones were paid for too), in every condition. Tokens as the provider reported them; model "
        "calls = the model's replies in the episode's transcript; wall time = the episode's duration. "
        "Scripted agents make no model calls.",
    )
    rows = []
    by_protocol_rows = []
    data: dict[str, Any] = {}
    for c in ctx.configs:
        total, by_protocol = costs(c.records, lambda r: r.protocol.value)
        protocols = {p: by_protocol.get(p) or cost([]) for p in PROTOCOL_NAMES}
        ecs = ctx.data.get("main", {}).get(c.label, {}).get("ecs") or {}
        rows.append(
            [
                Cell(c.label, colour=ctx.colours[c.label]),
                Cell(str(total.episodes)),
                *(Cell(_number(total.tokens_per_episode[k])) for k in TOKEN_KINDS),
                Cell(_number(total.model_calls_per_episode, 1)),
                Cell(_number(total.seconds_per_episode, 2)),
                Cell(DASH if total.tokens_per_episode["input_tokens"] is None else _number(sum(total.tokens.values()))),
                Cell(_number(total.seconds / 60, 1)),
                Cell(pct(ecs.get("value"))),
            ]
        )
        by_protocol_rows.append(
            [
                Cell(c.label, colour=ctx.colours[c.label]),
                *(
                    Cell(
                        f"{_tokens_per_episode(protocols[p])} · {_number(protocols[p].seconds_per_episode, 2)} s"
                        if protocols[p].episodes
                        else DASH
                    )
                    for p in PROTOCOL_NAMES
                ),
            ]
        )
        data[c.label] = {
            "total": _cost_json(total),
            "by_protocol": {p: _cost_json(v) for p, v in protocols.items() if v.episodes},
        }
    ctx.data["cost"] = data
    section.notes += notes_of(ctx.original_note("the ECS column"))
    section.tables.append(
        Table(
            "cost-table",
            "Cost per configuration (per episode, and in total)",
            [
                "Configuration",
                "Episodes",
                "Input tokens / ep.",
                "Output tokens / ep.",
                "Model calls / ep.",
                "Wall time / ep. (s)",
                "Tokens (total)",
                "Wall time (total, min)",
                "ECS (%)",
            ],
            rows,
        )
    )
    section.tables.append(
        Table(
            "cost-protocol-table",
            "Tokens and wall time per episode, by protocol",
            ["Configuration", *PROTOCOL_NAMES],
            by_protocol_rows,
            "Each cell: input + output tokens per episode · wall time per episode.",
            text_columns=(0, 1, 2, 3, 4, 5),
        )
    )
    return section


def _tokens_per_episode(value: Cost) -> str:
    per_episode = value.tokens_per_episode
    return DASH if per_episode["input_tokens"] is None else _number(sum(v or 0.0 for v in per_episode.values()))


def _cost_json(value: Cost) -> dict[str, Any]:
    return {
        "episodes": value.episodes,
        "tokens": value.tokens,
        "tokens_per_episode": value.tokens_per_episode,
        "model_calls_per_episode": value.model_calls_per_episode,
        "seconds_per_episode": value.seconds_per_episode,
        "seconds": value.seconds,
    }


def retrieval_section(ctx: Context) -> Section:
    section = Section(
        "retrieval",
        "Retrieval effort",
        intro="Information calls per case (a case's mean over its repetitions; original condition), by protocol, "
        "on all cases and split by outcome (a case counts under success or failure with the episodes of "
        f"that outcome), with 95% case-bootstrap intervals ({ctx.resamples:,} resamples).",
    )
    keys: list[tuple[str, str, bool | None]] = [
        (c.label, p, outcome) for c in ctx.configs for p in INTERACTIVE_NAMES for outcome in (None, True, False)
    ]
    by_outcome = {c.label: info_calls_by_outcome(ctx.original[c.label]) for c in ctx.configs}  # one pass each
    values = [
        {k: v for k, v in by_outcome[label][outcome].items() if ctx.protocol_of.get(k) == p}
        for label, p, outcome in keys
    ]
    intervals = dict(zip(keys, ctx.boot.intervals(ctx.boot.matrix(values)), strict=True))
    rows = []
    data: dict[str, Any] = {}
    series: dict[str, list[tuple[float | None, float | None, float | None]]] = {}
    for c in ctx.configs:
        data[c.label] = {}
        series[c.label] = []
        for p in INTERACTIVE_NAMES:
            every, won, lost = (intervals[(c.label, p, o)] for o in (None, True, False))
            series[c.label].append((every.estimate, every.low, every.high))
            if not every.n:
                continue
            rows.append(
                [
                    Cell(c.label, colour=ctx.colours[c.label]),
                    Cell(p),
                    Cell(str(every.n)),
                    Cell(_number(every.estimate, 2)),
                    Cell(ci_text(every, 1.0)),
                    Cell(f"{_number(won.estimate, 2)} ({won.n})"),
                    Cell(f"{_number(lost.estimate, 2)} ({lost.n})"),
                ]
            )
            data[c.label][p] = {"all": iv_json(every), "success": iv_json(won), "failure": iv_json(lost)}
    ctx.data["retrieval"] = data
    legacy_only = [x for x in ctx.labels if not data[x] and x not in ctx.unscored]
    section.notes += notes_of(ctx.original_note("retrieval effort"))
    if legacy_only:
        who = f" for {', '.join(legacy_only)}" if rows else ""
        section.notes.append(
            f"No scored interactive episode in the original condition{who}: a Legacy episode makes no information call."
        )
    if not rows:
        return section
    section.tables.append(
        Table(
            "retrieval-table",
            "Information calls per case",
            [
                "Configuration",
                "Protocol",
                "Cases",
                "Info calls / case",
                "95% CI",
                "On successes (cases)",
                "On failures (cases)",
            ],
            rows,
            text_columns=(0, 1),
        )
    )
    section.figures.append(
        Figure(
            "retrieval_effort",
            "Retrieval effort",
            "Information calls per case by protocol, with 95% case-bootstrap intervals.",
            fig.grouped_bars(
                list(INTERACTIVE_NAMES), series, "Retrieval effort", "information calls per case", ctx.colours, False
            ),
        )
    )
    return section
