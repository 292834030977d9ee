"""Render the results as docs/performance.md: machine, how to reproduce, targets vs measured, details."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOTES = Path(__file__).resolve().parent / "notes.md"


@dataclass(frozen=True)
class Target:
    label: str
    get: Callable[[dict[str, Any]], float | None]
    op: str  # "<" or ">="
    bound: float
    fmt: str  # format of value and bound

    def value(self, results: dict[str, Any]) -> float | None:
        try:
            return self.get(results)
        except (KeyError, TypeError, IndexError, StopIteration):
            return None

    def met(self, value: float | None) -> bool | None:
        if value is None:
            return None
        return value < self.bound if self.op == "<" else value >= self.bound


def _level(results: dict[str, Any], c: int, key: str = "efficiency") -> float | None:
    """The target's measure: `run --model` at concurrency C through the lean harness. Results from
    before the lean harness existed (the baseline) measured the Inspect path under `levels`."""
    concurrency = results["concurrency"]
    rows = concurrency["runs"]["lean"]["levels"] if "runs" in concurrency else concurrency["levels"]
    return next(r[key] for r in rows if r["concurrency"] == c)


TARGETS = [
    Target(
        "whole-suite `run --agent reference` incl. evaluation and its report (wall)",
        lambda r: r["end_to_end"]["wall_s"],
        "<",
        5.0,
        "{:.2f} s",
    ),
    Target(
        "the same with `--no-report` (plan, play, evaluate, store)",
        lambda r: r["end_to_end"]["no_report"]["wall_s"],
        "<",
        5.0,
        "{:.2f} s",
    ),
    Target(
        "evaluator throughput (re-score 656 reference trajectories)",
        lambda r: r["evaluator"]["cases_per_s"],
        ">=",
        2000,
        "{:,.0f} cases/s",
    ),
    Target("concurrency efficiency at C=64 (`run --harness lean`)", lambda r: _level(r, 64), ">=", 0.90, "{:.0%}"),
    Target("concurrency efficiency at C=256 (`run --harness lean`)", lambda r: _level(r, 256), ">=", 0.80, "{:.0%}"),
    Target(
        "paired bootstrap 10 configs × 570 cases × 10,000 resamples",
        lambda r: r["stats"]["seconds"],
        "<",
        3.0,
        "{:.2f} s",
    ),
    Target(
        "CLI harness overhead per episode, `--harness-cmd` (sandbox, network, tool server, relay)",
        lambda r: r["cli"]["command_thin"]["per_episode_s"],
        "<",
        1.0,
        "{:.2f} s",
    ),
    Target(
        "CLI harness overhead per step, `--harness-cmd` (a turn, the CLI's clock)",
        lambda r: r["cli"]["command_thin"]["turn_mean_s"],
        "<",
        0.1,
        "{:.3f} s",
    ),
    Target(
        "CLI harness overhead per episode, `--harness codex-cli` (the same + the model route)",
        lambda r: r["cli"]["family_thin"]["per_episode_s"],
        "<",
        1.0,
        "{:.2f} s",
    ),
    Target(
        "CLI harness overhead per step, `--harness codex-cli` (a turn, the CLI's clock)",
        lambda r: r["cli"]["family_thin"]["turn_mean_s"],
        "<",
        0.1,
        "{:.3f} s",
    ),
    Target(
        "peak RSS of the whole-suite reference run", lambda r: r["end_to_end"]["peak_rss_mb"], "<", 300.0, "{:.0f} MB"
    ),
    Target(
        "peak RSS of the reference run with its report at --repeat 40 (26,240 episodes)",
        lambda r: (r["end_to_end"].get("heavy") or {}).get("peak_rss_mb"),
        "<",
        300.0,
        "{:.0f} MB",
    ),
    Target(
        "peak RSS growth of the run with its report, --repeat 10 → 40 (1.00 = flat)",
        lambda r: r["end_to_end"].get("rss_growth"),
        "<",
        1.15,
        "{:.2f}×",
    ),
]


def fmt(value: Any, spec: str = "{:.2f}") -> str:
    if value is None:
        return "–"
    try:
        return spec.format(value)
    except (ValueError, TypeError):
        return str(value)


def _status(met: bool | None) -> str:
    return "–" if met is None else ("met" if met else "**missed**")


def targets_table(results: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    lines = ["| measure | target | measured | status | before the fixes |", "|---|---|---|---|---|"]
    for t in TARGETS:
        value = t.value(results)
        before = t.value(baseline) if baseline else None
        bound = t.fmt.format(t.bound)
        lines.append(
            f"| {t.label} | {'<' if t.op == '<' else '≥'} {bound} | {fmt(value, t.fmt)} | {_status(t.met(value))} "
            f"| {fmt(before, t.fmt)} |"
        )
    return lines


def _section_evaluator(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    e = r.get("evaluator")
    if not e:
        return []
    be = (b or {}).get("evaluator") or {}
    return [
        "### Evaluator throughput",
        "",
        f"Re-scoring the reference trajectories of {e['cases']} cases ({e['steps']:,} steps) by replay; best of "
        f"{e['repeats']} runs (the least disturbed by other work on the machine); all scored 1: {e['all_success']}.",
        "",
        "| | measured | before |",
        "|---|---:|---:|",
        f"| cases/s (best run) | {fmt(e['cases_per_s'], '{:,.0f}')} | {fmt(be.get('cases_per_s'), '{:,.0f}')} |",
        f"| cases/s (median run) | {fmt(e.get('cases_per_s_median'), '{:,.0f}')} "
        f"| {fmt(be.get('cases_per_s_median'), '{:,.0f}')} |",
        f"| cases per CPU second | {fmt(e.get('cases_per_cpu_s'), '{:,.0f}')} "
        f"| {fmt(be.get('cases_per_cpu_s'), '{:,.0f}')} |",
        f"| µs per case | {fmt(e['us_per_case'], '{:,.0f}')} | {fmt(be.get('us_per_case'), '{:,.0f}')} |",
        f"| µs per step | {fmt(e['us_per_step'], '{:,.1f}')} | {fmt(be.get('us_per_step'), '{:,.1f}')} |",
        f"| cases/s from stored JSON (`safeactbench evaluate` path) | {fmt(e['from_json_cases_per_s'], '{:,.0f}')} "
        f"| {fmt(be.get('from_json_cases_per_s'), '{:,.0f}')} |",
        "",
    ]


def _section_episode(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    e = r.get("episode")
    if not e:
        return []
    be = (b or {}).get("episode") or {}
    calls = e["calls"]
    rows = [
        ("new `Episode(case)` (fresh world)", "us_per_new_episode", calls.get("new_episode")),
        ("information call", "us_per_information_call", calls.get("information")),
        ("consequential call", "us_per_consequential_call", calls.get("consequential")),
        ("terminal call (`submit` / `decide`)", "us_per_terminal_call", calls.get("terminal")),
    ]
    out = [
        "### Episode overhead",
        "",
        f"`Episode.call` replaying the reference calls of {e['episodes']} cases on fresh episodes "
        "(the lowest mean per call over the runs).",
        "",
        "| | calls | µs each | before |",
        "|---|---:|---:|---:|",
    ]
    for label, key, n in rows:
        out.append(f"| {label} | {fmt(n, '{:,}')} | {fmt(e.get(key), '{:,.1f}')} | {fmt(be.get(key), '{:,.1f}')} |")
    out += [
        f"| whole in-process episode (agent + episode + evaluate + record), ms | | "
        f"{fmt(e['in_process_ms_per_episode'], '{:.2f}')} | {fmt(be.get('in_process_ms_per_episode'), '{:.2f}')} |",
        "",
    ]
    return out


def _section_e2e(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    e = r.get("end_to_end")
    if not e:
        return []
    be = (b or {}).get("end_to_end") or {}
    nr, bnr = e.get("no_report") or {}, be.get("no_report") or {}
    s = r.get("startup") or {}
    bs = (b or {}).get("startup") or {}
    return [
        "### End to end: `safeactbench run --agent reference`",
        "",
        f"The whole suite in a subprocess ({e['episodes']} episodes, {e['successes']} scored 1), best of "
        f"{e['repeats']} runs (median wall: {fmt(e.get('median_wall_s'))} s); peak RSS of that process from "
        "`os.wait4`. `run` writes OUT/report "
        "(tables, figures, HTML) at the end by default; `--no-report` is the run alone.",
        "",
        "| | default | before | `--no-report` | before |",
        "|---|---:|---:|---:|---:|",
        f"| wall, s | {fmt(e['wall_s'])} | {fmt(be.get('wall_s'))} | {fmt(nr.get('wall_s'))} "
        f"| {fmt(bnr.get('wall_s'))} |",
        f"| CPU (user+sys), s | {fmt(e['cpu_s'])} | {fmt(be.get('cpu_s'))} | {fmt(nr.get('cpu_s'))} "
        f"| {fmt(bnr.get('cpu_s'))} |",
        f"| peak RSS, MB | {fmt(e['peak_rss_mb'], '{:.0f}')} | {fmt(be.get('peak_rss_mb'), '{:.0f}')} "
        f"| {fmt(nr.get('peak_rss_mb'), '{:.0f}')} | {fmt(bnr.get('peak_rss_mb'), '{:.0f}')} |",
        "",
        f"Start-up (`safeactbench --help`: imports and argument parsing): {fmt(s.get('best_s'))} s "
        f"(before: {fmt(bs.get('best_s'))} s).",
        "",
        *_heavy_runs(e),
    ]


def _heavy_runs(e: dict[str, Any]) -> list[str]:
    """The run with its report at several --repeat: peak RSS must not grow with the episodes."""
    runs = e.get("heavy_runs") or []
    if not runs:
        return []
    rows = [
        f"| {h['repeat']} | {h['episodes']:,} | {fmt(h['wall_s'], '{:.1f}')} | {fmt(h['peak_rss_mb'], '{:.0f}')} |"
        for h in runs
    ]
    return [
        "Memory with the number of episodes (`run --agent reference --repeat N`, report included):",
        "",
        "| --repeat | episodes | wall, s | peak RSS, MB |",
        "|---:|---:|---:|---:|",
        *rows,
        "",
        f"Growth of the peak from the smallest to the largest: {fmt(e.get('rss_growth'))}× (1.00: flat).",
        "",
    ]


def _section_inspect(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    e = r.get("inspect")
    if not e:
        return []
    be = (b or {}).get("inspect") or {}
    out = [
        "### The Inspect path: `run --model safeactbench/reference` vs `run --agent reference`",
        "",
        "Same cases, same run store and evaluator; the scripted model answers at once (no latency), so this "
        "is pure harness cost. Marginal cost per episode = (wall(all) − wall(`--limit 1`)) / (episodes − 1).",
        "",
        "| | episodes | wall, s | fixed cost, s | ms per episode | peak RSS, MB | before: ms/episode | before: RSS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label in ("scripted", "inspect"):
        x, bx = e[label], be.get(label) or {}
        out.append(
            f"| {label} | {x['episodes']} | {fmt(x['wall_s'], '{:.1f}')} | {fmt(x['fixed_wall_s'], '{:.1f}')} "
            f"| {fmt(x['ms_per_episode'], '{:.1f}')} | {fmt(x['peak_rss_mb'], '{:.0f}')} "
            f"| {fmt(bx.get('ms_per_episode'), '{:.1f}')} | {fmt(bx.get('peak_rss_mb'), '{:.0f}')} |"
        )
    out += [
        "",
        f"**Inspect / in-process per-episode ratio: {fmt(e['ratio'], '{:.0f}')}×** "
        f"(before: {fmt(be.get('ratio'), '{:.0f}')}×).",
        "",
    ]
    return out


CLI_ROWS = {
    "react": "ReAct (`run --model safeactbench/reference`, Inspect, no sandbox)",
    "command_thin": "`--harness-cmd` with the thinnest CLI (`benchmarks/thin_cli.py`), `serve-agent`",
    "family_thin": "the family path (`--harness codex-cli`: Inspect, the model route) with the thinnest CLI",
    "command_codex": "`--harness-cmd @codex` (Codex CLI itself included), `serve-agent`",
    "family_codex": "`--harness codex-cli` (Codex CLI itself included)",
}


def _section_cli(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    e = r.get("cli")
    if not e:
        return []
    out = [
        "### CLI harnesses: what the harness itself costs",
        "",
        f"Cases {', '.join(e['cases'])}, one episode at a time, the scripted reference as the model. From each "
        "run's records, `duration_s` against the episode's model turns (calls + the closing turn), the run's "
        "first episode (warm-up) left out: the intercept is the cost per episode, the slope the cost per step. "
        "The thinnest CLI does a Python start-up and a little JSON, so its rows are the harness's own cost (sandbox, "
        "network namespace, tool server, relays, and on the family path the model route over Inspect); the Codex "
        "rows add Codex's own start-up and work. The thinnest CLI also times each of its turns (the model's "
        "answer and the tool call it asked for): the per-step ratio to ReAct's slope uses that clock, since a "
        "few milliseconds per step are below what the fit resolves.",
        "",
        "| path | episodes (score 1) | first episode, s | mean episode, s | per episode, s | per step, s "
        "| a turn as the CLI sees it, s (mean) | × ReAct, mean episode | × ReAct, per step |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    react_step = e["react"]["per_step_s"]
    for key, title in CLI_ROWS.items():
        x = e.get(key)
        if not x:
            continue
        step = x.get("turn_mean_s", x["per_step_s"])
        step_ratio = step / react_step if "mean_ratio" in x and step > 0 and react_step > 0 else None
        counts = f"{x['episodes']} ({x['successes']})" if "episodes" in x else "–"
        out.append(
            f"| {title} | {counts} | {fmt(x.get('first_s'), '{:.2f}')} | {fmt(x.get('mean_s'), '{:.3f}')} "
            f"| {fmt(x['per_episode_s'], '{:.3f}')} | {fmt(x['per_step_s'], '{:.4f}')} "
            f"| {fmt(x.get('turn_mean_s'), '{:.4f}')} | {fmt(x.get('mean_ratio'), '{:.1f}×')} "
            f"| {fmt(step_ratio, '{:.1f}×')} |"
        )
    c = e.get("family_concurrency")
    if c:
        out += [
            "",
            f"Concurrency on the family path: the same episodes at `--max-concurrency {c['level']}` took "
            f"{fmt(c['wall_s'], '{:.1f}')} s of wall time for {fmt(c['serial_episode_s'], '{:.1f}')} s of episodes "
            f"played one at a time: **{fmt(c['speedup'], '{:.1f}')}×** (nothing waits for a poll; two cores).",
        ]
    return [*out, ""]


WORKLOAD_TITLES = {
    "lean": "`run --harness lean`, reference agent (the target)",
    "inspect": "`run --model` through Inspect AI (the default harness), reference agent",
    "lean_one_turn": "`run --harness lean`, one model turn per episode (`always_defer`): worst case per episode",
}


def _section_concurrency(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    c = r.get("concurrency")
    if not c:
        return []
    before = {row["concurrency"]: row for row in ((b or {}).get("concurrency") or {}).get("levels", [])}
    out = [
        "### Concurrency efficiency: `safeactbench run --model … --max-concurrency C`",
        "",
        f"`safeactbench serve-agent AGENT --latency {c['latency_s']} --jitter {c['jitter_s']}` (its own process, "
        f"127.0.0.1) answers every chat completion after {c['latency_s'] * 1000:.0f} ± {c['jitter_s'] * 1000:.0f} ms "
        "with the scripted agent's next tool call. Every level plays the same "
        f"{c.get('cases', '?')} interactive cases (spread over all domains and protocols V0–V3), repeated to the "
        "episode counts shown; the reference agent's episodes take ~6 model turns and must all score 1.",
        "",
        "- **Efficiency = throughput / ideal**; throughput = N / (last response − first request), from the "
        "server's clock: the whole run, its ramp-up and its drain (the last episodes running while the other "
        "slots empty for want of work) included; ideal = C / (mean episode latency at C = 1): linear scaling "
        "from one unloaded episode.",
        "- latency ratio = latency(1) / latency(C): how much the harness slowed each episode under load; "
        "utilisation = throughput × latency(C) / C (Little's law: the share of the C slots busy). With a "
        "latency ratio near 100 %, what efficiency lacks is the drain, which shrinks as episodes per level grow.",
        "- CPU: the `run` process (worker processes included) and the server, each over its whole life "
        "(start-up included).",
        "",
    ]
    for name, run in c.get("runs", {}).items():
        out += [f"#### {WORKLOAD_TITLES.get(name, name)}", ""]
        if run.get("skipped"):
            out += [f"Skipped: {run['skipped']}.", ""]
            continue
        header = (
            "| C | workers | episodes (score 1) | turns/ep | peak in flight | throughput, ep/s | ideal, ep/s "
            "| **efficiency** | mean latency, s | p95, s | latency ratio | utilisation "
            "| client CPU, s | server CPU, s |"
        )
        align = "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        if name == "inspect" and before:
            header += " before: efficiency |"
            align += "---:|"
        out += [header, align]
        for row in run["levels"]:
            line = (
                f"| {row['concurrency']} | {row['workers']} | {row['completed']}/{row['episodes']} "
                f"({row['successes']}) | {fmt(row['turns_per_episode'], '{:.1f}')} "
                f"| {fmt(row['peak_in_flight'], '{}')} "
                f"| {fmt(row['throughput_eps'], '{:.1f}')} | {fmt(row['ideal_eps'], '{:.1f}')} "
                f"| **{fmt(row['efficiency'], '{:.0%}')}** "
                f"| {fmt(row['mean_latency_s'], '{:.3f}')} | {fmt(row['p95_latency_s'], '{:.3f}')} "
                f"| {fmt(row['latency_ratio'], '{:.0%}')} | {fmt(row['utilisation'], '{:.0%}')} "
                f"| {fmt(row['client_cpu_s'], '{:.1f}')} "
                f"| {fmt(row['server_cpu_s'], '{:.1f}')} |"
            )
            if name == "inspect" and before:
                line += f" {fmt(before.get(row['concurrency'], {}).get('efficiency'), '{:.0%}')} |"
            out.append(line)
        out.append("")
    return out


def _section_stats(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    s = r.get("stats")
    if not s:
        return []
    return [
        "### Statistics: paired case bootstrap",
        "",
        f"{s['configs']} configurations × {s['cases']} cases × {s['resamples']:,} resamples: one index matrix, the "
        f"mean and 95% interval of every configuration and the paired Δ of all {s['pairs']} pairs. "
        f"Implementation timed: {s['implementation']}.",
        "",
        "| | s |",
        "|---|---:|",
        f"| project implementation (best of runs) | {fmt(s['seconds'], '{:.3f}')} |",
        f"| project implementation (median) | {fmt(s.get('median_seconds'), '{:.3f}')} |",
        f"| numpy reference in `benchmarks/measure.py` (same work) | {fmt(s['numpy_reference_seconds'], '{:.3f}')} |",
        "",
    ]


def _section_prompts(r: dict[str, Any], b: dict[str, Any] | None) -> list[str]:
    p = r.get("prompts")
    if not p:
        return []
    out = [
        "### Prompt tokens per episode",
        "",
        f"What a model reads in the reference agent's episodes, counted offline ({p['encoding']}, "
        "`benchmarks/prompt_tokens.py`): the first request (tool list + system prompt + task), every "
        "request of the episode summed (chat completions resend the conversation), and the share a "
        "prompt cache can reuse (the prefix an earlier request began with).",
        "",
        "| protocol | episodes | first request | of which tools | system | task | requests | prompt tokens "
        "per episode | cacheable |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for protocol, row in p["by_protocol"].items():
        out.append(
            f"| {protocol} | {row['episodes']} | {row['first_request']:,.0f} | {row['tools']:,.0f} | "
            f"{row['system']:,.0f} | {row['task']:,.0f} | {row['requests']:.1f} | {row['per_episode']:,.0f} | "
            f"{100 * row['cacheable_share']:.0f}% |"
        )
    tools = ", ".join(f"{domain} {n:,}" for domain, n in p["tools_by_domain"].items())
    return [*out, "", f"Tool list tokens by domain: {tools}.", ""]


PLACEHOLDER = re.compile(r"\{\{([^}|]+)\|(pct|x|s|ms|n)\}\}")
FORMATS = {"pct": "{:.0%}", "x": "{:.1f}×", "s": "{:.2f} s", "ms": "{:.1f} ms", "n": "{:,.0f}"}


def lookup(results: Any, path: str) -> Any:
    """`concurrency.runs.lean.levels[concurrency=64].efficiency`: keys, and `[field=value]` picks the
    element of a list whose field has that value."""
    value = results
    for part in path.strip().split("."):
        name, _, pick = part.partition("[")
        value = value[name] if name else value
        if pick:
            field, _, wanted = pick.rstrip("]").partition("=")
            value = next(item for item in value if str(item.get(field)) == wanted)
    return value


def unfilled(notes: str, results: dict[str, Any]) -> list[str]:
    """The placeholders of the notes that these results cannot fill (a part not measured in them)."""
    return [path for path, _ in PLACEHOLDER.findall(notes) if _number(results, path) is None]


def filled(notes: str, results: dict[str, Any]) -> str:
    """The notes with every `{{path|format}}` replaced by that number of this page's results, so a
    finding that quotes a current number cannot drift from the tables (numbers written out are from
    when their round was measured); "–" where these results lack the part (`--only`, `--quick`)."""

    def value(match: re.Match[str]) -> str:
        path, kind = match.groups()
        number = _number(results, path)
        if number is None:
            return "–"
        return FORMATS[kind].format(number * 1000 if kind == "ms" else number)

    return PLACEHOLDER.sub(value, notes)


def _number(results: dict[str, Any], path: str) -> float | None:
    try:
        value = lookup(results, path)
    except (KeyError, StopIteration, TypeError, IndexError):
        return None
    return float(value) if isinstance(value, int | float) else None


def render(results: dict[str, Any], baseline: dict[str, Any] | None, command: str) -> str:
    m = results["machine"]
    packages = ", ".join(f"{k} {v}" for k, v in m["packages"].items())
    lines = [
        "# Performance",
        "",
        f"Generated by `{command}` on {results['generated_at']} (wall time {results['elapsed_s']:.0f} s). "
        "Do not edit by hand: the numbers are in `benchmarks/results.json`, the text under *Findings* comes from "
        "`benchmarks/notes.md`, the *before* column from `benchmarks/baseline.json` (the same benchmark run "
        "before the latest round of fixes).",
        *[
            f"Re-measured since by `python -m benchmarks --only {','.join(u['parts'])} --update` on {u['at']} "
            f"({u['elapsed_s']:.0f} s): those parts' numbers are from then, the rest from the run above."
            for u in results.get("updates", [])
        ],
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} cores, {fmt(m['memory_gib'], '{:.0f}')} GiB memory; {m['os']}",
        f"- Python: {m['python']}",
        f"- packages: {packages}",
        f"- fsync of one appended line in {m['tmpdir']}: {m['fsync_us']:,.0f} µs "
        "(median; run loops fsync the episode file from a background thread)",
        f"- OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: {m['openblas_env'] or 'not set'}",
        "- 1-minute load average before → after each part (includes the benchmark's own processes; "
        "other work on the machine skews timings): "
        + ", ".join(f"{k} {v[0]:.1f} → {v[1]:.1f}" for k, v in (results.get("load") or {}).items()),
        "",
        "## Reproduce",
        "",
        "```bash",
        ".venv/bin/pip install 'openai>=3.4'      # only for the Inspect rows of the concurrency part",
        ".venv/bin/python -m benchmarks            # everything (~8 min), writes docs/performance.md",
        ".venv/bin/python -m benchmarks --only evaluator,episode,stats --out /tmp/perf.md   # the fast parts",
        ".venv/bin/python -m benchmarks --quick --out /tmp/perf.md  # every part at a tiny size (seconds)",
        ".venv/bin/python -m benchmarks --json /tmp/perf.json       # also the raw numbers",
        ".venv/bin/python -m benchmarks --render benchmarks/results.json  # re-render this page from its numbers",
        "# the 'before' column: the same benchmark on a copy of src/ without the changes below",
        "PYTHONPATH=/path/to/old/src .venv/bin/python -m benchmarks --save-baseline --out /tmp/before.md",
        "```",
        "",
        "## Targets",
        "",
        *targets_table(results, baseline),
        "",
        "## Measurements",
        "",
    ]
    for section in (
        _section_evaluator,
        _section_episode,
        _section_e2e,
        _section_inspect,
        _section_cli,
        _section_concurrency,
        _section_stats,
        _section_prompts,
    ):
        lines += section(results, baseline)
    if NOTES.exists():
        lines += ["## Findings", "", filled(NOTES.read_text(encoding="utf-8").strip(), results), ""]
    return "\n".join(lines).rstrip() + "\n"
