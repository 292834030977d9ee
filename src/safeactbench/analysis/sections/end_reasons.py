"""How episodes ended, per configuration: the agent's own ending (submitted, decided, out of
budget, stopped talking), runtime failures by class (missing, never scored), and the replies
that wrote a tool call as text — so an `agent_stopped` can be told from a server that does not
parse tool calls. Also each configuration's generation settings, as pinned in its runs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from ...runs.rows import Episode
from ..formatting import DASH
from ..metrics import missing_reason
from ..runs import Configuration
from ..structure import Cell, Section, Table
from .context import Context

ENDINGS = ("submitted", "decided", "budget_exhausted", "agent_stopped")


def end_counts(records: Iterable[Episode]) -> dict[str, Any]:
    """Episodes by how they ended (every condition, repetition and run of a configuration; one
    record per episode, as verification keeps them)."""
    endings: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    text_calls = transcribed = 0
    for r in records:
        if r.status == "missing":
            missing[missing_reason(r)] += 1
        elif r.trajectory is not None:
            endings[r.trajectory.end_reason] += 1
        if r.transcript is not None:
            transcribed += 1
            text_calls += any(turn.text_tool_call for turn in r.transcript)
    return {
        "episodes": sum(endings.values()) + sum(missing.values()),
        "endings": {e: endings[e] for e in ENDINGS},
        "missing": dict(sorted(missing.items())),
        "text_tool_call_episodes": text_calls if transcribed else None,
    }


def _settings(config: Configuration) -> str:
    """The generation settings pinned by the configuration's runs (several if they differ)."""
    pinned = {
        _describe(run.meta["config"].get("generation") or {})
        for run in config.runs
        if isinstance(run.meta.get("config"), dict)
    }
    return " | ".join(sorted(pinned)) or DASH


def _describe(generation: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(generation.items())) or "provider defaults"


def end_reasons_section(ctx: Context) -> Section:
    counts = {c.label: end_counts(c.records) for c in ctx.configs}
    classes = sorted({k for v in counts.values() for k in v["missing"]})
    rows = []
    for c in ctx.configs:
        n = counts[c.label]
        text_calls = n["text_tool_call_episodes"]
        rows.append(
            [
                Cell(c.label),
                Cell(str(n["episodes"])),
                *(Cell(str(n["endings"][e])) for e in ENDINGS),
                *(Cell(str(n["missing"].get(k, 0))) for k in classes),
                Cell(DASH if text_calls is None else str(text_calls)),
                Cell(_settings(c)),
            ]
        )
    ctx.data["end_reasons"] = {c.label: counts[c.label] | {"generation": _settings(c)} for c in ctx.configs}
    columns = ["Configuration", "Episodes", *ENDINGS, *(f"missing: {k}" for k in classes)]
    columns += ["Text tool calls", "Generation settings"]
    table = Table(
        "end-reasons-table",
        "End reason of every episode, per configuration",
        columns,
        rows,
        "submitted/decided: the agent ended the episode; budget_exhausted: it ran out of tool calls; "
        "agent_stopped: it replied without a tool call twice in a row. Missing columns are runtime "
        "failures by class (never scored). Text tool calls: episodes with a reply that wrote a tool call "
        "as text instead of calling it (a server that does not parse the model's tool calls); – where "
        "the harness keeps no transcript (scripted agents, CLI agents).",
        text_columns=(0, len(columns) - 1),
    )
    return Section("end-reasons", "How episodes ended", tables=[table])
