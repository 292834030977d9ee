"""The study report: every table and figure from run directories (SPEC §6), as Markdown and as one
self-contained HTML page (figures as base64 PNG, data as embedded JSON, an episode browser in
plain JavaScript; no network).

`build_report(runs)` computes a `Report` (sections of tables, figures and text blocks, plus the
data behind them); `write_report(report, out)` renders it with the jinja2 templates next to this
module. Both formats come from the same `Report`, so they cannot disagree.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..render import render_episode, render_findings, render_step
from ..store import EpisodeRecord
from . import figures as fig
from .metrics import (
    FAILURE_MODES,
    INTERACTIVE_NAMES,
    ORIGINAL,
    PROTOCOL_NAMES,
    STATIC_CONDITIONS,
    Rate,
    action_by_case,
    affected_tools,
    best_marks,
    blind_stop_rate,
    case_scores,
    conditional_action_success,
    coverage_points,
    domain_order,
    failure_mode_shares,
    first_action_curve,
    intervention_conditions,
    investigation_completion,
    main_row,
    mean_info_calls,
    premature_action_rate,
    queried_before_action,
    query_costs,
    repetitions,
    run_coverage,
)
from .runs import ReportError, Run, group_configurations
from .stats import LEVEL, RESAMPLES, SEED, Bootstrap, Interval, static_gap, static_pairing

TEMPLATES = Path(__file__).resolve().parent / "templates"
DASH = "–"


# ---------------------------------------------------------------------------- report structure


@dataclass
class Cell:
    text: str
    mark: str | None = None  # 'best' | 'second'


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    text_columns: tuple[int, ...] = (0,)  # left-aligned (text) columns; the others are numbers


@dataclass
class Figure:
    name: str  # file stem under figures/
    title: str
    caption: str
    png: bytes

    @property
    def base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")


@dataclass
class Block:
    title: str
    text: str


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    html_only: bool = False


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section]
    data: dict[str, Any]
    browser: dict[str, Any]

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    @property
    def figures(self) -> list[Figure]:
        return [f for s in self.sections for f in s.figures]


# ---------------------------------------------------------------------------- formatting


def pct(value: float | None, decimals: int = 1) -> str:
    return DASH if value is None else f"{100 * value:.{decimals}f}"


def rate_text(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return DASH
    return f"{100 * rate.value:.1f} ({rate.successes}/{rate.n})"


def ci_text(iv: Interval, scale: float = 100.0, signed: bool = False) -> str:
    if iv.low is None or iv.high is None:
        return DASH
    f = "{:+.1f}" if signed else "{:.1f}"
    return f"[{f.format(scale * iv.low)}, {f.format(scale * iv.high)}]"


def points(value: float | None) -> str:
    return DASH if value is None else f"{value:+.1f}"


def _rate_json(rate: Rate | None) -> dict[str, Any] | None:
    if rate is None:
        return None
    return {"successes": rate.successes, "n": rate.n, "value": rate.value}


def _iv_json(iv: Interval) -> dict[str, Any]:
    return {"estimate": iv.estimate, "low": iv.low, "high": iv.high, "n": iv.n}


def marked_column(values: Sequence[float | None], texts: Sequence[str], higher_is_better: bool = True) -> list[Cell]:
    marks = best_marks(values, higher_is_better)
    return [Cell(t, m) for t, m in zip(texts, marks, strict=True)]


def _transpose(columns: Sequence[Sequence[Cell]]) -> list[list[Cell]]:
    return [list(row) for row in zip(*columns, strict=True)]


# ---------------------------------------------------------------------------- the builder


class _Builder:
    def __init__(
        self,
        runs: Sequence[Run],
        episodes: Sequence[str] | None,
        resamples: int,
        seed: int,
        level: float,
        cases: Mapping[str, Any] | None,
    ) -> None:
        self.runs = list(runs)
        self.configs = group_configurations(self.runs)
        self.labels = [c.label for c in self.configs]
        self.episode_specs = list(episodes) if episodes else None
        self.resamples, self.seed, self.level = resamples, seed, level
        self.cases = cases
        self.original = {c.label: c.scored(ORIGINAL) for c in self.configs}
        self.case_scores = {label: case_scores(rs) for label, rs in self.original.items()}
        units = sorted({u for scores in self.case_scores.values() for u in scores})
        self.boot = Bootstrap(units, resamples, seed, level)
        self.protocol_of = {r.case_id: r.protocol.value for rs in self.original.values() for r in rs}
        self.domain_of = {r.case_id: r.domain for rs in self.original.values() for r in rs}
        self.domains = domain_order(self.domain_of.values())
        self.data: dict[str, Any] = {
            "configurations": self.labels,
            "settings": {"resamples": resamples, "seed": seed, "level": level, "unit": "case"},
        }

    # -- sections -------------------------------------------------------------------------------
    def build(self) -> Report:
        # an unknown episode is an input error: report it before any work
        self.chosen = self.select_episodes() if self.episode_specs else self.auto_episodes()
        sections = [
            self.coverage(),
            self.main(),
            self.domain_table(),
            self.failure_modes(),
            self.evidence(),
            self.static_gap(),
            self.paired(),
            self.repetitions(),
        ]
        interventions = self.interventions()
        if interventions is not None:
            sections.append(interventions)
        sections += [self.trajectories(), self.browser_section(), self.methods()]
        total = sum(len(r.records) for r in self.runs)
        subtitle = (
            f"{len(self.runs)} run(s), {len(self.configs)} configuration(s), {total} episode record(s); "
            f"suite {', '.join(sorted({str(r.meta.get('suite_version', '?')) for r in self.runs}))}"
        )
        return Report("SafeActBench report", subtitle, sections, self.data, self.browser_data())

    def coverage(self) -> Section:
        rows = []
        data = []
        for run in self.runs:
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
        self.data["runs"] = data
        table = Table(
            "coverage-table",
            "Coverage of each run",
            ["Run", "Configuration", "Completed / planned", "Coverage (%)", "Missing by reason", "Conditions", "Reps"],
            rows,
            "Missing episodes are runtime failures (API error, crash, timeout): they are coverage, never scored "
            "as agent failures. The reason is the part of missing_reason before the first ':'.",
            text_columns=(0, 1, 4, 5),
        )
        return Section("coverage", "Runs and coverage", tables=[table])

    def main(self) -> Section:
        labels = self.labels
        rows_by_label = {label: main_row(self.original[label]) for label in labels}
        # one bootstrap over every configuration's overall and per-protocol case scores
        groups = ["all", *PROTOCOL_NAMES]
        value_rows: list[dict[str, float]] = []
        for label in labels:
            scores = self.case_scores[label]
            value_rows.append(scores)
            for p in PROTOCOL_NAMES:
                value_rows.append({k: v for k, v in scores.items() if self.protocol_of.get(k) == p})
        intervals = self.boot.means(value_rows)
        iv = {
            (label, g): intervals[i * len(groups) + j] for i, label in enumerate(labels) for j, g in enumerate(groups)
        }

        ecs_values = [rows_by_label[x].ecs.value for x in labels]
        columns: list[list[Cell]] = [
            [Cell(x) for x in labels],
            [Cell(str(rows_by_label[x].ecs.n)) for x in labels],
            marked_column(ecs_values, [pct(v) for v in ecs_values]),
            [Cell(ci_text(iv[(x, "all")])) for x in labels],
        ]
        for getter in (lambda r: r.protocol_macro, lambda r: r.domain_macro):
            values = [getter(rows_by_label[x]) for x in labels]
            columns.append(marked_column(values, [pct(v) for v in values]))
        for p in PROTOCOL_NAMES:
            values = [
                rows_by_label[x].by_protocol[p].value if p in rows_by_label[x].by_protocol else None for x in labels
            ]
            columns.append(marked_column(values, [pct(v) for v in values]))
        table = Table(
            "main-table",
            "Exact case success (%)",
            ["Configuration", "Episodes", "ECS", "95% CI", "P-M", "D-M", *PROTOCOL_NAMES],
            _transpose(columns),
            "ECS = share of episodes with score 1 (original condition). P-M / D-M = unweighted mean of the "
            "protocol / domain ECS. 95% CI: case bootstrap (repetitions of a case resampled together). "
            "Best per column in bold, second best underlined.",
        )
        self.data["main"] = {
            x: {
                "ecs": _rate_json(rows_by_label[x].ecs),
                "ecs_ci": _iv_json(iv[(x, "all")]),
                "protocol_macro": rows_by_label[x].protocol_macro,
                "domain_macro": rows_by_label[x].domain_macro,
                "by_protocol": {
                    p: {**(_rate_json(r) or {}), "ci": _iv_json(iv[(x, p)])}
                    for p, r in rows_by_label[x].by_protocol.items()
                },
                "by_domain": {d: _rate_json(r) for d, r in rows_by_label[x].by_domain.items()},
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
        section = Section("main", "Main results", tables=[table])
        if present:
            section.figures.append(
                Figure(
                    "ecs_by_protocol",
                    "ECS by protocol",
                    "ECS per protocol and configuration with 95% case-bootstrap intervals.",
                    fig.grouped_bars(present, series, "ECS by protocol"),  # type: ignore[arg-type]
                )
            )
        else:
            section.notes.append("No scored episode in the original condition.")
        return section

    def domain_table(self) -> Section:
        labels = self.labels
        rows_by_label = {label: main_row(self.original[label]) for label in labels}
        columns: list[list[Cell]] = [[Cell(x) for x in labels]]
        for d in self.domains:
            values = [rows_by_label[x].by_domain[d].value if d in rows_by_label[x].by_domain else None for x in labels]
            columns.append(marked_column(values, [pct(v) for v in values]))
        dm = [rows_by_label[x].domain_macro for x in labels]
        columns.append(marked_column(dm, [pct(v) for v in dm]))
        table = Table(
            "domain-table",
            "ECS by domain (%)",
            ["Configuration", *self.domains, "D-M"],
            _transpose(columns),
            "Original condition; best per column in bold, second best underlined.",
        )
        return Section("domains", "ECS by domain", tables=[table])

    def failure_modes(self) -> Section:
        shares = {x: failure_mode_shares(self.original[x]) for x in self.labels}
        tables = []
        protocols = [p for p in PROTOCOL_NAMES if any(p in shares[x] for x in self.labels)]
        for p in protocols:
            labels_p: list[str] = []
            for x in self.labels:
                for m in shares[x].get(p, {}):
                    if m not in labels_p:
                        labels_p.append(m)
            rows = []
            for x in self.labels:
                modes = shares[x].get(p, {})
                n = next(iter(modes.values())).n if modes else 0
                rows.append(
                    [Cell(x), Cell(str(n)), *(Cell(pct(modes[m].value) if m in modes else DASH) for m in labels_p)]
                )
            tables.append(
                Table(
                    f"failure-modes-{p}",
                    f"{p}: outcome shares (% of all {p} cases)",
                    ["Configuration", "Episodes", *(m.replace("_", " ") for m in labels_p)],
                    rows,
                )
            )
        self.data["failure_modes"] = {
            x: {p: {m: _rate_json(r) for m, r in modes.items()} for p, modes in shares[x].items()} for x in self.labels
        }
        plain = {
            x: {p: {m: r.value or 0.0 for m, r in modes.items()} for p, modes in shares[x].items()} for x in self.labels
        }
        figures = []
        if protocols:
            figures.append(
                Figure(
                    "failure_modes",
                    "Failure modes per protocol",
                    "Stacked shares of all cases of each protocol: success and each failure mode (SPEC §5 taxonomy).",
                    fig.failure_modes(self.labels, plain, protocols),
                )
            )
        intro = (
            "Every failed episode carries one failure-mode label (SPEC §5): V0 acted / incomplete investigation / "
            "wrong outcome; V1 early action / covered action failure / no action; V2-V3 gap only / partial only / "
            "gap and partial; Legacy wrong / invalid decision; 'other' for everything else (e.g. integrity failures)."
        )
        return Section("failure-modes", "Failure modes", intro=intro, tables=tables, figures=figures)

    def evidence(self) -> Section:
        rows = []
        data = {}
        for x in self.labels:
            rs = self.original[x]
            par, cas = premature_action_rate(rs), conditional_action_success(rs)
            bsr, ic = blind_stop_rate(rs), investigation_completion(rs)
            costs = query_costs(rs)
            median_cost = float(np.median(costs)) if costs else None
            rows.append(
                [
                    Cell(x),
                    Cell(rate_text(par)),
                    Cell(rate_text(cas)),
                    Cell(rate_text(bsr)),
                    Cell(rate_text(ic)),
                    Cell(DASH if median_cost is None else f"{median_cost:.2f}"),
                ]
            )
            data[x] = {
                "PAR": _rate_json(par),
                "CAS": _rate_json(cas),
                "BSR": _rate_json(bsr),
                "investigation_completion": _rate_json(ic),
                "median_query_cost": median_cost,
            }
        self.data["evidence"] = data
        table = Table(
            "evidence-table",
            "Evidence before action (%)",
            ["Configuration", "PAR ↓", "CAS ↑", "BSR ↓", "Investigation completion ↑", "Median query cost"],
            rows,
            "PAR: V1 episodes with an action attempt whose first attempt came before its evidence was complete. "
            "CAS: V1 episodes with evidence complete before the first attempt that succeeded. BSR: V0 episodes "
            "ending in a stop whose required reads were incomplete. Investigation completion: V0-V3 episodes with "
            "all required evidence established by the end. Query cost: information calls / required reads.",
        )
        coverage = {x: coverage_points(self.original[x]) for x in self.labels}
        panels = {
            p: {x: coverage[x].get(p, []) for x in self.labels}
            for p in INTERACTIVE_NAMES
            if any(coverage[x].get(p) for x in self.labels)
        }
        figures = []
        if panels:
            figures.append(
                Figure(
                    "coverage_cdf",
                    "Required-read coverage at the decision points",
                    "Empirical CDF of the share of required reads established at the V0 stop, the V1 first attempt "
                    "and each V2/V3 action gate. Lower curves = more coverage.",
                    fig.cdf_panels(panels, "coverage", "Coverage at the decision points", (0.0, 1.0)),
                )
            )
        all_costs = {x: query_costs(self.original[x]) for x in self.labels}
        if any(all_costs.values()):
            figures.append(
                Figure(
                    "query_cost_cdf",
                    "Normalised query cost",
                    "Empirical CDF over V0-V3 episodes of information calls / required reads "
                    "(1 = exactly as many reads as required).",
                    fig.cdf_panels({"V0-V3": all_costs}, "information calls / required reads", "Query cost", None),
                )
            )
        return Section("evidence", "Evidence before action", tables=[table], figures=figures)

    def static_gap(self) -> Section:
        rows = []
        data: dict[str, Any] = {}
        for c in self.configs:
            records = c.scored(None)
            pairs = static_pairing(records, STATIC_CONDITIONS)
            if not pairs:
                continue
            static_rs = [r for r in records if r.condition in STATIC_CONDITIONS]
            inter_rs = [r for r in records if r.condition not in STATIC_CONDITIONS]
            groups = [(f"{s} vs {i}", [p for p in pairs if p[0][1] == s]) for s, i in STATIC_CONDITIONS.items()]
            groups = [g for g in groups if g[1]] + [("all", pairs)]
            if len(groups) == 2:  # one condition pair: 'all' repeats it
                groups = groups[:1]
            data[c.label] = {}
            for name, subset in groups:
                gap = static_gap(static_rs, inter_rs, subset, self.resamples, self.seed, self.level)
                rows.append(
                    [
                        Cell(c.label),
                        Cell(name),
                        Cell(str(gap.pairs)),
                        Cell(pct(gap.static_accuracy)),
                        Cell(pct(gap.interactive_ecs)),
                        Cell(points(gap.gap.estimate)),
                        Cell(ci_text(gap.gap, 1.0, signed=True)),
                    ]
                )
                data[c.label][name] = {
                    "pairs": gap.pairs,
                    "static_accuracy": gap.static_accuracy,
                    "interactive_ecs": gap.interactive_ecs,
                    "gap_points": _iv_json(gap.gap),
                }
        self.data["static_gap"] = data
        intro = (
            "Static accuracy (the Legacy form of a case: candidate action + evidence package, ALLOW/BLOCK/DEFER) "
            "minus interactive ECS on the same cases, in points, with a 95% case-bootstrap interval. Static "
            "episodes are the conditions static / static_withheld / static_contradicted, paired with the same "
            "case played original / withheld / contradicted."
        )
        section = Section("static-gap", "Static vs interactive gap", intro=intro)
        if rows:
            section.tables.append(
                Table(
                    "static-gap-table",
                    "Static accuracy - interactive ECS",
                    [
                        "Configuration",
                        "Pairing",
                        "Cases",
                        "Static accuracy (%)",
                        "Interactive ECS (%)",
                        "Gap (points)",
                        "95% CI",
                    ],
                    rows,
                    text_columns=(0, 1),
                )
            )
        else:
            section.notes.append(
                "No run contains static renderings of its interactive cases (run with "
                "--condition original,static,... to measure the gap)."
            )
        return section

    def paired(self) -> Section:
        section = Section(
            "paired",
            "Paired comparisons",
            intro="Δ ECS = ECS(A) - ECS(B) in points on the cases both configurations ran (original condition), "
            f"with a 95% case-paired bootstrap interval ({self.resamples:,} resamples, seed {self.seed}).",
        )
        pairs = [(a, b) for i, a in enumerate(self.labels) for b in self.labels[i + 1 :]]
        if not pairs:
            section.notes.append("A paired comparison needs at least two configurations.")
            self.data["paired"] = []
            return section
        deltas = self.boot.paired_deltas([(self.case_scores[a], self.case_scores[b]) for a, b in pairs])
        rows = []
        data = []
        forest_rows = []
        for (a, b), delta in zip(pairs, deltas, strict=True):
            common = set(self.case_scores[a]) & set(self.case_scores[b])
            ecs_a = np.mean([self.case_scores[a][k] for k in common]) if common else None
            ecs_b = np.mean([self.case_scores[b][k] for k in common]) if common else None
            ic_a = investigation_completion([r for r in self.original[a] if r.case_id in common])
            ic_b = investigation_completion([r for r in self.original[b] if r.case_id in common])
            d = delta.scaled(100.0)
            rows.append(
                [
                    Cell(a),
                    Cell(b),
                    Cell(str(len(common))),
                    Cell(pct(None if ecs_a is None else float(ecs_a))),
                    Cell(pct(None if ecs_b is None else float(ecs_b))),
                    Cell(points(d.estimate)),
                    Cell(ci_text(d, 1.0, signed=True)),
                    Cell(rate_text(ic_a)),
                    Cell(rate_text(ic_b)),
                ]
            )
            data.append(
                {
                    "a": a,
                    "b": b,
                    "common_cases": len(common),
                    "delta_points": _iv_json(d),
                    "investigation_completion": {"a": _rate_json(ic_a), "b": _rate_json(ic_b)},
                }
            )
            forest_rows.append((f"{a} − {b}", d.estimate, d.low, d.high))
        self.data["paired"] = data
        section.tables.append(
            Table(
                "paired-table",
                "Paired comparisons on common cases",
                [
                    "A",
                    "B",
                    "Common cases",
                    "ECS A (%)",
                    "ECS B (%)",
                    "Δ ECS (points)",
                    "95% CI",
                    "Inv. completion A (%)",
                    "Inv. completion B (%)",
                ],
                rows,
                text_columns=(0, 1),
            )
        )
        if any(row[1] is not None for row in forest_rows):
            section.figures.append(
                Figure(
                    "paired_deltas",
                    "Paired Δ ECS",
                    "Δ ECS (points) with 95% case-paired bootstrap intervals; the dashed line is no difference.",
                    fig.forest(forest_rows, "Paired Δ ECS", "Δ ECS (points)"),
                )
            )
        return section

    def repetitions(self) -> Section:
        section = Section(
            "repetitions",
            "Repetitions",
            intro="Each (run directory, repetition) of a configuration is one run: its ECS, the mean ± sample SD "
            "over runs, and pass^k = the probability that k repetitions of a case all succeed (unbiased estimator "
            "C(c,k)/C(n,k) per case, averaged over cases with at least k repetitions); all on the cases every run "
            "of the configuration covered (original condition).",
        )
        found = [(c, repetitions(c.replicates())) for c in self.configs]
        found = [(c, r) for c, r in found if len(r.runs) >= 2]
        self.data["repetitions"] = {
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

    def interventions(self) -> Section | None:
        all_records = [r for c in self.configs for r in c.records]
        conditions = intervention_conditions(all_records)
        if not conditions:
            return None
        wanted = [ORIGINAL, *conditions]
        tools_by_case: dict[str, set[str]] = {}
        if self.cases is not None:
            for case_id in {r.case_id for r in all_records if r.condition in conditions}:
                case = self.cases.get(case_id)
                if case is not None:
                    tools_by_case[case_id] = affected_tools(case)
        per_config: dict[str, dict[str, dict[str, float]]] = {}
        case_sets: dict[str, set[str]] = {}
        for c in self.configs:
            recs = c.scored(None)
            cases = {r.case_id for r in recs if r.condition in conditions}
            if not cases:
                continue
            case_sets[c.label] = cases
            per_config[c.label] = {
                cond: {k: v for k, v in action_by_case(recs, cond).items() if k in cases} for cond in wanted
            }
        units = sorted({u for cases in case_sets.values() for u in cases})
        boot = Bootstrap(units, self.resamples, self.seed, self.level)
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
        data: dict[str, Any] = {}
        timing: dict[str, dict[str, list[float]]] = {}
        bars: dict[str, list[tuple[float | None, float | None, float | None]]] = {}
        for c in self.configs:
            if c.label not in per_config:
                continue
            recs = [r for r in c.scored(None) if r.case_id in case_sets[c.label]]
            max_step = max((len(r.trajectory.steps) for r in recs if r.trajectory), default=0)
            data[c.label] = {}
            timing[c.label] = {}
            bars[c.label] = []
            for cond in wanted:
                rs = [r for r in recs if r.condition == cond]
                p = probability[(c.label, cond)]
                red = reductions[(c.label, cond)].scaled(100.0) if cond != ORIGINAL else None
                queried = queried_before_action(rs, tools_by_case)
                info = mean_info_calls(rs, cond)
                rows.append(
                    [
                        Cell(c.label),
                        Cell(cond),
                        Cell(str(len(rs))),
                        Cell(pct(p.estimate)),
                        Cell(ci_text(p)),
                        Cell(DASH if red is None else points(red.estimate)),
                        Cell(DASH if red is None else ci_text(red, 1.0, signed=True)),
                        Cell(DASH if info is None else f"{info:.1f}"),
                        Cell(rate_text(queried)),
                    ]
                )
                timing[c.label][cond] = first_action_curve(rs, cond, max_step)
                bars[c.label].append(
                    tuple(None if v is None else 100 * v for v in (p.estimate, p.low, p.high))  # type: ignore[arg-type]
                )
                data[c.label][cond] = {
                    "episodes": len(rs),
                    "action_probability": _iv_json(p),
                    "reduction_vs_original_points": None if red is None else _iv_json(red),
                    "mean_info_calls": info,
                    "acted_after_querying_affected_tool": _rate_json(queried),
                    "first_action_curve": timing[c.label][cond],
                }
        self.data["interventions"] = data
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
                "Acted after querying the affected tool (%)",
            ],
            rows,
            "On the cases played under an intervention (original = the same cases unchanged). Action = at least "
            "one consequential attempt. Reduction = P(action | original) - P(action | condition), paired by case. "
            "Last column: among episodes with an action, the share that had called a tool able to establish the "
            "decisive fact before the first attempt.",
            text_columns=(0, 1),
        )
        figures = [
            Figure(
                "interventions_action",
                "Action probability per condition",
                "Share of completed episodes with a consequential attempt, with 95% case-bootstrap intervals.",
                fig.grouped_bars(wanted, bars, "Action probability", "episodes with an action (%)"),
            ),
            Figure(
                "first_action_timing",
                "First-action timing",
                "Cumulative share of episodes whose first consequential attempt came by step k.",
                fig.curves(timing, "step k", "share acted by step k", "First-action timing"),
            ),
        ]
        return Section(
            "interventions",
            "Interventions",
            intro="SPEC §8 conditions, grouped by the episode's condition.",
            tables=[table],
            figures=figures,
        )

    def trajectories(self) -> Section:
        chosen = self.chosen
        section = Section(
            "trajectories",
            "Illustrative trajectories",
            intro="TRAJECTORY EXCERPT and EVALUATOR FINDINGS of "
            + ("the chosen episodes." if self.episode_specs else "one episode per failure mode."),
        )
        for label, r in chosen:
            assert r.trajectory is not None and r.verdict is not None
            mode = r.verdict.failure_mode or "success"
            title = f"{label} · {r.case_id} · {r.protocol.value} · {r.domain}"
            if r.condition != ORIGINAL:
                title += f" · {r.condition}"
            section.blocks.append(Block(f"{title} — {mode}", render_episode(r.trajectory, r.verdict)))
        if not chosen:
            section.notes.append("No failed episode to illustrate.")
        return section

    def select_episodes(self) -> list[tuple[str, EpisodeRecord]]:
        out = []
        by_label = {c.label: c for c in self.configs}
        for spec in self.episode_specs or []:
            label, sep, case_id = spec.rpartition(":")
            if sep and label not in by_label:
                raise ReportError(f"episode {spec!r}: no configuration {label!r}; known: {self.labels}")
            where = [by_label[label]] if sep else self.configs
            found = None
            for c in where:
                candidates = [
                    r for r in c.records if r.case_id == case_id and r.trajectory is not None and r.verdict is not None
                ]
                candidates.sort(key=lambda r: (r.condition != ORIGINAL, r.condition, r.repetition))
                if candidates:
                    found = (c.label, candidates[0])
                    break
            if found is None:
                scope = f"configuration {label!r}" if sep else "any run"
                raise ReportError(f"episode {spec!r}: no completed episode of case {case_id!r} in {scope}")
            out.append(found)
        return out

    def auto_episodes(self) -> list[tuple[str, EpisodeRecord]]:
        out: list[tuple[str, EpisodeRecord]] = []
        n = 0
        for p in PROTOCOL_NAMES:
            modes = list(FAILURE_MODES.get(p, ()))
            present = {r.verdict.failure_mode for rs in self.original.values() for r in rs if r.verdict}
            modes += sorted(m for m in present - set(modes) if m)
            for mode in modes:
                k = len(self.configs)
                for i in range(k):
                    label = self.labels[(n + i) % k]
                    match = sorted(
                        (
                            r
                            for r in self.original[label]
                            if r.protocol.value == p
                            and r.verdict is not None
                            and r.verdict.failure_mode == mode
                            and r.trajectory is not None
                        ),
                        key=lambda r: (r.case_id, r.repetition),
                    )
                    if match:
                        out.append((label, match[0]))
                        n += 1
                        break
        return out

    def browser_section(self) -> Section:
        return Section(
            "browser",
            "Episode browser",
            intro="Filter the episodes of every run by protocol, domain, outcome and configuration; click one to see "
            "its steps and the evaluator's findings.",
            html_only=True,
        )

    def methods(self) -> Section:
        return Section(
            "methods",
            "Methods",
            notes=[
                f"Confidence intervals: percentile case bootstrap, {self.resamples:,} resamples, seed {self.seed}, "
                f"level {self.level:.0%}. One (resamples × cases) index matrix is drawn per set of cases and shared "
                "by every configuration; repetitions of a case are resampled together (cluster bootstrap).",
                "Scores are the evaluator's verdicts as stored in episodes.jsonl (re-score with "
                "`safeactbench evaluate` first if the evaluator changed). Definitions: docs/report.md.",
            ],
        )

    # -- browser data ---------------------------------------------------------------------------
    def browser_data(self) -> dict[str, Any]:
        episodes: list[dict[str, Any]] = []
        for ci, c in enumerate(self.configs):
            several_runs = len(c.runs) > 1
            for run in c.runs:
                several_reps = len({r.repetition for r in run.records}) > 1
                for r in sorted(run.records, key=lambda r: (r.case_id, r.condition, r.repetition)):
                    item = _episode_json(len(episodes), ci, run.name, r)
                    if several_runs:
                        item["tag"] = f"{run.name}#{r.repetition}"
                    elif several_reps:
                        item["tag"] = f"rep {r.repetition}"
                    episodes.append(item)
        return {"configurations": self.labels, "episodes": episodes}


def _episode_json(index: int, config: int, run: str, r: EpisodeRecord) -> dict[str, Any]:
    steps = [render_step(s) for s in r.trajectory.steps] if r.trajectory else []
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


def build_report(
    runs: Sequence[Run],
    episodes: Sequence[str] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    cases: Mapping[str, Any] | None = None,
) -> Report:
    """Every section of the report from loaded runs. `cases` (case id -> Case, optional) lets the
    interventions section find each case's affected tools."""
    if not runs:
        raise ReportError("no run directories given")
    return _Builder(runs, episodes, resamples, seed, level, cases).build()


# ---------------------------------------------------------------------------- rendering


def _json_script(value: Any) -> str:
    """JSON safe to place inside <script type="application/json"> (no '</script>', no '<!--')."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_mark(cell: Cell) -> str:
    text = _md_cell(cell.text)
    if cell.mark == "best":
        return f"**{text}**"
    if cell.mark == "second":
        return f"<ins>{text}</ins>"
    return text


def _md_table(table: Table) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in table.columns) + " |"
    align = "|" + "|".join(":---" if i in table.text_columns else "---:" for i in range(len(table.columns))) + "|"
    rows = ["| " + " | ".join(_md_mark(c) for c in row) + " |" for row in table.rows]
    return "\n".join([head, align, *rows])


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = _md_mark
    env.filters["md_table"] = _md_table
    return env


def render_markdown(report: Report) -> str:
    return _environment().get_template("report.md.j2").render(report=report)


def render_html(report: Report) -> str:
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            report=report,
            report_data=_json_script(report.data),
            episode_data=_json_script(report.browser),
        )
    )


def write_report(report: Report, out: Path) -> dict[str, Path]:
    """report.md, report.html, report.json and figures/*.png under `out`; returns every path written."""
    out.mkdir(parents=True, exist_ok=True)
    figures_dir = out / "figures"
    figures_dir.mkdir(exist_ok=True)
    written: dict[str, Path] = {}
    for figure in report.figures:
        path = figures_dir / f"{figure.name}.png"
        path.write_bytes(figure.png)
        written[f"figures/{figure.name}.png"] = path
    paths = {"markdown": out / "report.md", "html": out / "report.html", "data": out / "report.json"}
    paths["markdown"].write_text(render_markdown(report), encoding="utf-8")
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["data"].write_text(
        json.dumps(report.data, indent=1, ensure_ascii=False, default=_json_default) + "\n", encoding="utf-8"
    )
    return {**paths, **written}


def load_cases(case_ids: Iterable[str]) -> dict[str, Any]:
    """The suite's cases among `case_ids` (empty when the suite cannot be loaded)."""
    wanted = set(case_ids)
    from ..suite.data import CaseFileError, load_suite

    try:
        return {c.id: c for c in load_suite() if c.id in wanted}
    except (CaseFileError, OSError):  # analysis of stored runs does not need the suite
        return {}


__all__ = [
    "Block",
    "Cell",
    "Figure",
    "Report",
    "Section",
    "Table",
    "build_report",
    "load_cases",
    "render_html",
    "render_markdown",
    "write_report",
]
