"""Part 8, the CLI harnesses: the thinnest CLI on both paths (`--harness-cmd`, a family CLI)
and Codex as a family CLI; per-episode and per-turn cost fitted over episode lengths."""

from __future__ import annotations

import json
import shutil
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .tooling import PYTHON, read_records, run_cli, run_measured, scratch, serve_agent

CLI_CASES = "SAB-L-001,SAB-V0-001,SAB-V1-001,SAB-V1-025,SAB-V2-001,SAB-V2-033,SAB-V3-022,SAB-V3-111"


THIN_CLI = Path(__file__).resolve().parent / "thin_cli.py"


def _fit(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least squares `y = a + b x`: (a, b)."""
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def _episode_costs(run_dir: Path) -> dict[str, Any]:
    """Per episode (the fit's intercept) and per model turn (its slope) of the records' `duration_s`,
    the turns being the reference's calls plus its closing turn. The run's first episode (warm-up:
    imports, first connections) is left out of the fit and shown apart."""
    records = read_records(run_dir)
    first, *rest = sorted(records, key=lambda r: r["started_at"])
    points = [(len(r["trajectory"]["steps"]) + 1.0, float(r["duration_s"])) for r in rest]
    per_episode, per_step = _fit(points)
    return {
        "episodes": len(records),
        "successes": sum(1 for r in records if (r.get("verdict") or {}).get("score") == 1),
        "steps": sum(len(r["trajectory"]["steps"]) for r in records),
        "first_s": float(first["duration_s"]),
        "mean_s": statistics.mean(y for _, y in points),
        "per_episode_s": per_episode,
        "per_step_s": per_step,
    }


def _turns_seen(run_dir: Path) -> dict[str, float]:
    """The thinnest CLI's own clock: seconds per turn (its model request and the tool call it made),
    from the last line of every episode's log."""
    turns = [
        t
        for log in sorted((run_dir / "work").glob("*/harness.log"))
        for t in json.loads(log.read_text(encoding="utf-8").strip().splitlines()[-1])["turns_s"]
    ]
    return {"turns": len(turns), "turn_median_s": statistics.median(turns), "turn_mean_s": statistics.mean(turns)}


def cli_harnesses(cases: str = CLI_CASES, timeout: float = 1800.0, with_codex: bool = True) -> dict[str, Any]:
    """What a CLI harness itself costs, next to the ReAct path on the same cases, one episode at a
    time (no queueing), the scripted reference as the model (no model compute).

    - `react`: `run --model safeactbench/reference` (Inspect's ReAct loop, no sandbox);
    - `command_thin`: `--harness-cmd` with the thinnest CLI (`thin_cli.py`: stdlib, a Python start-up
      and a little JSON) against `serve-agent`: the sandbox, its network, the tool server, the relay;
    - `family_thin`: the family path (`--harness codex-cli`: the Inspect task, sandbox, tool server,
      the model route over Inspect) with the thinnest CLI in place of Codex (`family_thin.py`);
    - `command_codex` / `family_codex`: Codex CLI under `--harness-cmd @codex` (serve-agent) and as
      `--harness codex-cli`: what a real CLI adds.

    From each run's records, `duration_s` against the episode's model turns: the intercept is the
    per-episode cost, the slope the per-step cost; the thinnest CLI also times each of its turns.
    `with_codex` False leaves out the Codex rows and the concurrency run (the smoke test)."""
    out: dict[str, Any] = {"cases": cases.split(",")}
    base = ["--cases", cases, "--max-concurrency", "1", "--no-report"]
    codex = with_codex and shutil.which("codex") is not None and shutil.which("bwrap") is not None
    with scratch() as tmp:
        run_cli(["--model", "safeactbench/reference", *base], tmp / "react", timeout=timeout)
        out["react"] = _episode_costs(tmp / "react")
        if shutil.which("bwrap") is None:
            return out
        shown = tmp / "cli"
        shown.mkdir()
        shutil.copy(THIN_CLI, shown / "thin_cli.py")
        served = serve_agent(tmp, "reference", latency=0.0, jitter=0.0)
        try:
            thin = f"python3 -I -S {shown / 'thin_cli.py'} {{base_url}} {{mcp_url}} {{prompt_file}} {{model}}"
            command = ["--model", "reference", "--base-url", served.base_url, "--sandbox-bind", str(shown)]
            run_cli(["--harness-cmd", thin, *command, *base], tmp / "command_thin", timeout=timeout)
            out["command_thin"] = _episode_costs(tmp / "command_thin") | _turns_seen(tmp / "command_thin")
            if codex:
                run_cli(["--harness-cmd", "@codex", *command, *base], tmp / "command_codex", timeout=timeout)
                out["command_codex"] = _episode_costs(tmp / "command_codex")
        finally:
            served.shutdown()
        if codex:
            family = ["--model", "safeactbench/reference", "--harness", "codex-cli", *base]
            run_cli(family, tmp / "family_codex", timeout=timeout)
            out["family_codex"] = _episode_costs(tmp / "family_codex")
        family_thin = [PYTHON, "-m", "benchmarks.family_thin", str(tmp / "family_thin"), cases, str(shown)]
        run_measured(family_thin, timeout=timeout).check()
        out["family_thin"] = _episode_costs(tmp / "family_thin") | _turns_seen(tmp / "family_thin")
        if codex:
            at_four = ["--model", "safeactbench/reference", "--harness", "codex-cli", "--cases", cases,
                       "--max-concurrency", "4", "--no-report"]  # fmt: skip
            parallel = run_cli(at_four, tmp / "family_c4", timeout=timeout)
            serial = sum(r["duration_s"] for r in read_records(tmp / "family_codex"))
            out["family_concurrency"] = {"level": 4, "serial_episode_s": serial, "wall_s": parallel.wall_s,
                                         "speedup": serial / max(1e-9, parallel.wall_s)}  # fmt: skip
    for name in ("command_thin", "family_thin"):
        if name in out:
            out[name]["mean_ratio"] = out[name]["mean_s"] / out["react"]["mean_s"]
    return out
