"""Timing of the vectorised case bootstrap (run on demand; not a test).

    .venv/bin/python benchmarks/bench_bootstrap.py [--configs 10] [--cases 570] [--resamples 10000]

Draws one (resamples x cases) index matrix, then computes every configuration's ECS interval and
every pairwise Δ ECS interval from it - the work the report does. The budget is 3 s for
10 configurations x 570 cases x 10,000 resamples.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from safeactbench.analysis.stats import Bootstrap

BUDGET_S = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--cases", type=int, default=570)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (first and best are reported)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    units = [f"SAB-{i:04d}" for i in range(args.cases)]
    rates = rng.uniform(0.2, 0.9, size=args.configs)
    rows = [
        {u: float(rng.random() < p) for u in units if rng.random() > 0.02}  # ~2 % missing episodes
        for p in rates
    ]
    pairs = [(rows[i], rows[j]) for i in range(args.configs) for j in range(i + 1, args.configs)]

    timings = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        boot = Bootstrap(units, resamples=args.resamples)
        drawn = time.perf_counter()
        intervals = boot.means(rows)
        means = time.perf_counter()
        deltas = boot.paired_deltas(pairs)
        end = time.perf_counter()
        timings.append((end - start, drawn - start, means - drawn, end - means))
    total, draw, ecs, paired = min(timings)
    cold = timings[0][0]
    print(
        f"{args.configs} configurations x {args.cases} cases x {args.resamples:,} resamples: "
        f"best {total:.3f} s, first (cold) {cold:.3f} s (budget {BUDGET_S:.1f} s)"
    )
    print(f"  index matrix + counts  {draw:.3f} s")
    print(f"  {args.configs} ECS intervals       {ecs:.3f} s")
    print(f"  {len(pairs)} paired Δ intervals  {paired:.3f} s")
    ecs_example, delta_example = intervals[0].scaled(100.0), deltas[0].scaled(100.0)
    print(f"  e.g. ECS {ecs_example.estimate:.1f} [{ecs_example.low:.1f}, {ecs_example.high:.1f}]")
    print(f"  e.g. Δ {delta_example.estimate:+.1f} [{delta_example.low:+.1f}, {delta_example.high:+.1f}] points")
    print("OK" if cold < BUDGET_S else "OVER BUDGET")


if __name__ == "__main__":
    main()
