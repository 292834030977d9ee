"""Author's check of one domain: `python -m safeactbench.suite.check DOMAIN [--show N]`.

Builds the domain's slice of the suite with its stop twins, lints every case, plays every reference
solution through the evaluator, checks that each decisive fact gets one gold, and prints
composition and family statistics. Exit status 1 on any problem.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter

from ..authoring.family import Domain
from ..authoring.situations import situation_problems
from ..domains import domain as registered_domain
from .build import build_suite
from .interventions import STOP_TWINS, has_condition, transform
from .validation import validate_case


def find_domain(name: str) -> Domain:
    """A registered domain, or one still being written (its package not yet in the registry)."""
    try:
        return registered_domain(name)
    except KeyError:
        module = importlib.import_module(f"safeactbench.domains.{name}")
        return module.DOMAIN  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("domain")
    parser.add_argument("--show", type=int, default=0, help="print the tasks of the first N cases per protocol")
    args = parser.parse_args(argv)
    cases = build_suite([find_domain(args.domain)])
    twins = [transform(c, t) for t in STOP_TWINS for c in cases if has_condition(c, t)]
    problems: list[str] = []
    for case in cases + twins:
        problems += [f"[{case.family}] {p}" for p in validate_case(case)]
    problems += situation_problems(cases + twins)
    by_protocol = Counter(str(c.protocol) for c in cases)
    by_family = Counter(c.family for c in cases)
    print(f"{len(cases)} cases: {dict(by_protocol)}")
    for family, n in sorted(by_family.items()):
        protocols = sorted({str(c.protocol) for c in cases if c.family == family})
        print(f"  {family:40s} {n:3d}  {protocols}")
    gold = Counter(
        (str(c.protocol), c.legacy.decision.value if c.legacy else c.stop.outcome.value if c.stop else "act")
        for c in cases
    )
    print("gold:", dict(sorted(gold.items())))
    shown: Counter[str] = Counter()
    for case in cases:
        if shown[case.protocol] < args.show:
            shown[case.protocol] += 1
            print(f"- {case.id} {case.family}: {case.task}")
    for p in problems:
        print("PROBLEM", p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
