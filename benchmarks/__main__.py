"""`python -m benchmarks [--quick] [--only PARTS] [--out docs/performance.md] [--json FILE]`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import PARTS, cli_harnesses, concurrency
from . import measure as m
from .machine import machine
from .prompt_tokens import prompt_tokens
from .report import render

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "performance.md"
QUICK_CASES = "SAB-L-001,SAB-V0-001,SAB-V2-001"


def run(parts: list[str], quick: bool, log: Any = print) -> dict[str, Any]:
    """Every requested measurement, at full size or (quick) at a tiny size."""
    started = time.perf_counter()
    results: dict[str, Any] = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "quick": quick}
    load: dict[str, tuple[float, float]] = {}
    results["load"] = load
    log("machine ...")
    results["machine"] = machine(5 if quick else 50)
    sizes = QUICK if quick else FULL
    for part in PARTS:
        if part not in parts:
            continue
        log(f"{part} ...")
        before = os.getloadavg()[0]
        for key, fn in sizes[part]:
            results[key] = fn()
        load[part] = (before, os.getloadavg()[0])
    results["elapsed_s"] = time.perf_counter() - started
    return results


FULL: dict[str, list[tuple[str, Any]]] = {
    "evaluator": [("evaluator", lambda: m.evaluator_throughput(None, 5))],
    "episode": [("episode", lambda: m.episode_overhead(None, 5))],
    "e2e": [("startup", lambda: m.startup(3)), ("end_to_end", lambda: m.end_to_end(3))],
    "inspect": [("inspect", lambda: m.inspect_path())],
    "cli": [("cli", lambda: cli_harnesses.cli_harnesses())],
    "concurrency": [("concurrency", lambda: concurrency.concurrency())],
    "stats": [("stats", lambda: m.bootstrap_stats())],
    "prompts": [("prompts", lambda: prompt_tokens())],
}
QUICK: dict[str, list[tuple[str, Any]]] = {
    "evaluator": [("evaluator", lambda: m.evaluator_throughput(12, 1))],
    "episode": [("episode", lambda: m.episode_overhead(12, 1))],
    "e2e": [
        ("startup", lambda: m.startup(1)),
        ("end_to_end", lambda: m.end_to_end(1, cases=QUICK_CASES, heavy=(1, 2))),
    ],
    "inspect": [("inspect", lambda: m.inspect_path(cases=QUICK_CASES))],
    "cli": [("cli", lambda: cli_harnesses.cli_harnesses(cases="SAB-L-001,SAB-V1-001,SAB-V2-033"))],
    "concurrency": [
        (
            "concurrency",
            lambda: concurrency.concurrency(
                (1, 2), workloads=concurrency.QUICK_WORKLOADS, cases=2, latency=0.02, jitter=0.005
            ),
        )
    ],
    "stats": [("stats", lambda: m.bootstrap_stats(3, 20, 200, 1))],
    "prompts": [("prompts", lambda: prompt_tokens(12))],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="every part at a tiny size (seconds, for smoke tests)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts: {','.join(PARTS)}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the markdown report")
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        help="also write the raw results here (default with the default --out: benchmarks/results.json)",
    )
    parser.add_argument(
        "--baseline", type=Path, default=ROOT / "benchmarks" / "baseline.json", help="results shown as 'before'"
    )
    parser.add_argument("--save-baseline", action="store_true", help="write these results to --baseline")
    parser.add_argument(
        "--render", type=Path, default=None, help="measure nothing: render --out from a results JSON (from --json)"
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="measure the --only parts and keep every other part's numbers from benchmarks/results.json",
    )
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"--only: unknown {unknown}; choose from {list(PARTS)}")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.render is not None:
        results = json.loads(args.render.read_text(encoding="utf-8"))
        parts = [p for p in PARTS if p in results or (p == "e2e" and "end_to_end" in results)]
    else:
        results = run(parts, args.quick, log)
        kept = ROOT / "benchmarks" / "results.json"
        if args.update and kept.exists():
            earlier = json.loads(kept.read_text(encoding="utf-8"))
            update = {"parts": parts, "at": results["generated_at"], "elapsed_s": results["elapsed_s"]}
            fresh = {k: v for k, v in results.items() if k not in ("machine", "generated_at", "elapsed_s", "load")}
            results = {**earlier, **fresh, "load": {**earlier.get("load", {}), **results["load"]},
                       "updates": [*earlier.get("updates", []), update]}  # fmt: skip
            parts = [p for p in PARTS if p in results or (p == "e2e" and "end_to_end" in results)]
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline.exists() else None
    command = (
        "python -m benchmarks"
        + (" --quick" if results.get("quick", args.quick) else "")
        + (f" --only {','.join(parts)}" if set(parts) != set(PARTS) else "")
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(results, None if args.save_baseline else baseline, command), encoding="utf-8")
    raw = args.json
    if raw is None and args.render is None and args.out == DEFAULT_OUT and not args.save_baseline:
        raw = ROOT / "benchmarks" / "results.json"  # the numbers behind docs/performance.md
    if raw is not None:
        raw.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.save_baseline:
        args.baseline.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
