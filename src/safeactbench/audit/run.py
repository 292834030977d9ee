"""Running the audit: sample the cases, score every mutant with the real evaluator, and the
`safeactbench audit` command."""

from __future__ import annotations

import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.evaluator import evaluate
from ..core.model import Case
from ..suite.model_use import concepts
from .calls import play, reference_calls
from .operators import mutants
from .oracle_judge import oracle_problems
from .report import PROTOCOL_ORDER, AuditReport


def sample_cases(cases: Sequence[Case], n: int, seed: int = 0) -> list[Case]:
    """A seeded sample stratified by protocol (round robin), in suite order."""
    rng = random.Random(seed)
    pools: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        pools[case.protocol.value].append(case)
    for pool in pools.values():
        rng.shuffle(pool)
    chosen: list[Case] = []
    order = [p for p in PROTOCOL_ORDER if p in pools] + sorted(set(pools) - set(PROTOCOL_ORDER))
    while len(chosen) < min(n, len(cases)):
        for p in order:
            if pools[p] and len(chosen) < n:
                chosen.append(pools[p].pop())
    position = {id(c): i for i, c in enumerate(cases)}
    return sorted(chosen, key=lambda c: position[id(c)])


def run_audit(
    cases: Sequence[Case],
    *,
    sample: int | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """Generate and score every mutant of `cases` (or of a seeded stratified sample of them)."""
    selected = list(cases) if sample is None else sample_cases(cases, sample, seed)
    report = AuditReport(seed=seed, sample=sample, cases=len(selected))
    counts = Counter(c.protocol.value for c in selected)
    report.cases_by_protocol = {p: counts[p] for p in PROTOCOL_ORDER if p in counts}
    report.cases_by_condition = dict(Counter(c.condition for c in selected))
    for done, case in enumerate(selected, start=1):
        try:
            _audit_case(case, report)
        except Exception as exc:  # a generator bug must show up in the report, not abort the audit
            report.errors.append(f"{case.id}: {type(exc).__name__}: {exc}")
        if progress is not None:
            progress(done, len(selected))
    report._sorted()
    return report


def _audit_case(case: Case, report: AuditReport) -> None:
    ref = play(case, reference_calls(case))
    verdict = evaluate(case, ref.trajectory)
    if verdict.score != 1:
        report.reference_failures.append(f"{case.id}: reference scored 0 ({verdict.outcome.value})")
        return
    problems = oracle_problems(case, ref)
    if problems:
        report.reference_failures.append(f"{case.id}: the label oracle finds the reference invalid: {problems}")
        return
    used = concepts(case)
    for mutant, scored, played in mutants(case):
        verdict = evaluate(scored, played.trajectory)
        detail = "; ".join(f"{f.code.value}: {f.detail}" for f in verdict.findings[:3]) or "no findings"
        if not mutant.by_oracle and (mutant.expect == "fail") != bool(mutant.oracle):
            report.inconsistencies.append(
                {
                    "case_id": case.id,
                    "operator": mutant.operator,
                    "mutation": mutant.note,
                    "expected": mutant.expect,
                    "oracle": list(mutant.oracle) or "valid",
                }
            )
        report.record(mutant, verdict.score, verdict.outcome.value, detail, used)


def audit_command(sample: int | None, as_json: bool, out: Path | None, conditions: Sequence[str] = ()) -> int:
    """`safeactbench audit [--sample N] [--json] [--out FILE] [--conditions ...]`: exit 1 on any false
    acceptance or rejection. `conditions`: variants audited beside the cases (the stop twins, ...)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..suite.catalog import played
    from ..suite.data import load_suite

    err = Console(stderr=True, soft_wrap=True)
    with Progress(
        TextColumn("[bold]audit"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err
    ) as bar:
        task = bar.add_task("audit", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = run_audit(played(load_suite(), ["original", *conditions]), sample=sample, progress=advance)
    text = report.to_json() if as_json else report.to_markdown()
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    t = report.total
    err.print(
        f"{'[green]✓' if report.ok else '[red]✗'}[/] {t.mutants} mutants over {report.cases} cases: "
        f"{t.false_accepts} false acceptances, {t.false_rejects} false rejections"
        + (
            f", {len(report.reference_failures) + len(report.inconsistencies) + len(report.errors)} self-check problems"
            if not report.ok and not (t.false_accepts or t.false_rejects)
            else ""
        )
    )
    return 0 if report.ok else 1
