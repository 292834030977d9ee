"""Episodes: the illustrative trajectories (chosen, or one per failure mode), the episode browser's
section and the data behind it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.render import render_episode, render_findings, render_step
from ...runs.rows import EpisodeRow
from ...runs.store import EpisodeRecord
from ..metrics import FAILURE_MODES, ORIGINAL, PROTOCOL_NAMES
from ..runs import ReportError, Run
from ..structure import Block, EpisodeBrowser, Section
from .context import Context

Chosen = tuple[str, Run, EpisodeRow]  # configuration label, the run it is in, the episode's row


def choose_episodes(ctx: Context) -> list[Chosen]:
    """The illustrative episodes: the chosen ones (`ReportError` for an unknown one), else one per
    failure mode."""
    if ctx.episode_specs:
        return _select_episodes(ctx)
    # no scored original episode at all: illustrate the conditions played instead
    return _auto_episodes(ctx, original=len(ctx.unscored) < len(ctx.labels))


def _select_episodes(ctx: Context) -> list[Chosen]:
    out = []
    by_label = {c.label: c for c in ctx.configs}
    for spec in ctx.episode_specs or []:
        label, sep, case_id = spec.rpartition(":")
        if sep and label not in by_label:
            raise ReportError(f"episode {spec!r}: no configuration {label!r}; known: {ctx.labels}")
        where = [by_label[label]] if sep else ctx.configs
        found = None
        for c in where:
            candidates = [
                (run, r)
                for run in c.runs
                for r in run.records
                if r.case_id == case_id and r.trajectory is not None and r.verdict is not None
            ]
            if candidates:
                run, r = min(candidates, key=lambda pair: (pair[1].condition != ORIGINAL, pair[1].condition,
                                                           pair[1].repetition))  # fmt: skip
                found = (c.label, run, r)
                break
        if found is None:
            scope = f"configuration {label!r}" if sep else "any run"
            raise ReportError(f"episode {spec!r}: no completed episode of case {case_id!r} in {scope}")
        out.append(found)
    return out


def _auto_episodes(ctx: Context, original: bool = True) -> list[Chosen]:
    """One episode per (protocol, failure mode), the configurations taking turns; of a configuration,
    its first such episode by case and repetition (original condition; with `original` False, of any
    condition, by case, condition and repetition)."""
    first: dict[tuple[str, str, str], tuple[tuple[str, str, int, int], Run, EpisodeRow]] = {}
    for c in ctx.configs:
        for index, run in enumerate(c.runs):
            for r in run.records:
                if (original and r.condition != ORIGINAL) or r.verdict is None or r.trajectory is None:
                    continue
                key = (c.label, r.protocol.value, r.verdict.failure_mode or "")
                order = (r.case_id, r.condition, r.repetition, index)
                if key not in first or order < first[key][0]:
                    first[key] = (order, run, r)
    out: list[Chosen] = []
    n = 0
    for p in PROTOCOL_NAMES:
        modes = list(FAILURE_MODES.get(p, ()))
        present = {mode for _, protocol, mode in first if protocol == p}
        modes += sorted(m for m in present - set(modes) if m)
        for mode in modes:
            k = len(ctx.configs)
            for i in range(k):
                label = ctx.labels[(n + i) % k]
                found = first.get((label, p, mode))
                if found is not None:
                    out.append((label, found[1], found[2]))
                    n += 1
                    break
    return out


def trajectories_section(ctx: Context, chosen: list[Chosen]) -> Section:
    section = Section(
        "trajectories",
        "Illustrative trajectories",
        intro="TRAJECTORY EXCERPT and EVALUATOR FINDINGS of "
        + ("the chosen episodes." if ctx.episode_specs else "one episode per failure mode."),
    )
    stored: dict[tuple[int, int], EpisodeRecord] = {}
    for run in {id(run): run for _, run, _ in chosen}.values():  # one read of each run file
        mine = [r for _, of, r in chosen if of is run]
        stored.update(((id(run), r.line), whole) for r, whole in zip(mine, run.whole(mine), strict=True))
    for label, run, r in chosen:
        assert r.verdict is not None
        mode = r.verdict.failure_mode or "success"
        title = f"{label} · {r.case_id} · {r.protocol.value} · {r.domain}"
        if r.condition != ORIGINAL:
            title += f" · {r.condition}"
        trajectory = stored[(id(run), r.line)].trajectory
        assert trajectory is not None
        section.blocks.append(Block(f"{title} — {mode}", render_episode(trajectory, r.verdict)))
    if not chosen:
        section.notes.append("No failed episode to illustrate.")
    elif not ctx.episode_specs and len(ctx.unscored) == len(ctx.labels):
        section.notes.append("No episode was scored in the original condition: these come from the conditions played.")
    return section


def browser_section() -> Section:
    return Section(
        "browser",
        "Episode browser",
        intro="Filter the episodes of every run by protocol, domain, outcome and configuration; click one to see "
        "its steps and the evaluator's findings.",
        html_only=True,
    )


def browser_data(ctx: Context) -> EpisodeBrowser:
    """Every episode of every run for the browser, produced one at a time as the page is written."""

    def episodes() -> Iterator[dict[str, Any]]:
        index = 0
        for ci, c in enumerate(ctx.configs):
            several_runs = len(c.runs) > 1
            for run in c.runs:
                several_reps = len({r.repetition for r in run.records}) > 1
                # rows come by case, condition and repetition (`verify.verify_lines`)
                for r, stored in zip(run.records, run.whole(run.records), strict=True):
                    item = _episode_json(index, ci, run.name, r, stored)
                    if several_runs:
                        item["tag"] = f"{run.name}#{r.repetition}"
                    elif several_reps:
                        item["tag"] = f"rep {r.repetition}"
                    index += 1
                    yield item

    return EpisodeBrowser(ctx.labels, dict(ctx.tasks), episodes)


def _episode_json(index: int, config: int, run: str, r: EpisodeRow, stored: EpisodeRecord) -> dict[str, Any]:
    """One episode: its scores from the verified record `r`, its steps from the stored one."""
    steps = [render_step(s) for s in stored.trajectory.steps] if stored.trajectory else []
    if r.status != "completed":
        outcome, findings = "MISSING", [f"missing episode: {r.missing_reason or 'unknown reason'}"]
        score, mode = None, None
    elif r.verdict is None:
        outcome, findings, score, mode = "UNSCORED", ["no verdict stored"], None, None
    else:
        outcome = r.verdict.outcome.value
        findings = render_findings(r.verdict).splitlines()
        score, mode = r.verdict.score, r.verdict.failure_mode
    return {
        "id": f"e{index}",
        "config": config,
        "run": run,
        "case": r.case_id,
        "protocol": r.protocol.value,
        "domain": r.domain,
        "condition": r.condition,
        "repetition": r.repetition,
        "outcome": outcome,
        "score": score,
        "mode": mode,
        "end": r.trajectory.end_reason if r.trajectory else None,
        "steps": steps,
        "findings": findings,
        "tag": "",
    }
