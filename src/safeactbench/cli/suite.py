"""`validate`, `suite new` and `suite build`: check a suite, start one, build one from scenario families."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..agents import get_agent
from ..analysis.judgement import harmful_action_rates, paired_ecs
from ..runs.runner import Job, play_scripted
from ..suite.catalog import CONDITIONS, played
from ..suite.data import load_suite
from .common import SuiteOption, app, choose_suite, console, err, fail, progress_bar, split_list, suite_app

BASELINES = (
    "reference",
    "oracle_judge",
    "comply",
    "eager",
    "shallow",
    "skeptic",
    "credulous",
    "random",
    "always_block",
    "always_defer",
)


@app.command()
def validate(
    conditions: Annotated[
        str, typer.Option(help="also validate the V1 intervention variants: comma-separated, or 'all'")
    ] = "original",
    report: Annotated[
        Path | None, typer.Option(help="write the suite's validation report (Markdown) to this file")
    ] = None,
    strict: Annotated[bool, typer.Option(help="fail on authoring warnings too, not only on errors")] = False,
    suite: SuiteOption = None,
) -> None:
    """Lint every case and play every reference solution; exit 0 unless a case has an error (or,
    with --strict, a warning)."""
    choose_suite(suite)
    from ..authoring.situations import situation_problems
    from ..suite.validation import validate_levels

    wanted = list(CONDITIONS) if conditions == "all" else split_list(conditions) or ["original"]
    unknown = set(wanted) - set(CONDITIONS)
    if unknown:
        raise fail(f"--conditions: unknown {sorted(unknown)}; available: {list(CONDITIONS)} or 'all'")
    cases = played(load_suite(), wanted)
    errors: list[str] = []
    warnings: list[str] = []
    with progress_bar() as bar:
        task = bar.add_task("validate", total=len(cases))
        for case in cases:
            case_errors, case_warnings = validate_levels(case)
            errors += case_errors
            warnings += case_warnings
            bar.advance(task)
    warnings += situation_problems(cases)  # the balance of a suite's situations: a convention of the packaged one
    if report is not None:
        write_suite_report(report)
        console.print(f"wrote {report}")
    for w in warnings:
        err.print(f"[yellow]warning:[/] {escape(w)}")
    for e in errors:
        err.print(f"[red]✗[/] {escape(e)}")
    counted = f"{len(errors)} error(s), {len(warnings)} warning(s) in {len(cases)} cases"
    if errors or (strict and warnings):
        raise fail(counted + ("" if errors else " (--strict)"), 1)
    if warnings:
        console.print(f"[green]✓[/] no errors; {len(warnings)} authoring warning(s) (--strict fails on them)")
        return
    console.print(f"[green]✓[/] {len(cases)} cases lint clean; reference solutions {len(cases)}/{len(cases)}")


def write_suite_report(path: Path) -> None:
    """Suite statistics plus the ECS of every scripted baseline, as Markdown."""
    from ..analysis.judgement import ACTING, TWINS
    from ..suite.catalog import played
    from ..suite.lint import lint_case
    from ..suite.report import render_report, suite_statistics

    suite = list(load_suite())
    twins = played(suite, TWINS)
    baselines: dict[str, dict[str, tuple[int, int]]] = {}
    judgement: dict[str, dict[str, tuple[int, int]]] = {}
    with progress_bar() as bar:
        task = bar.add_task("baselines", total=len(BASELINES) * (len(suite) + len(twins)))
        for name in BASELINES:
            agent = get_agent(name)
            rates: dict[str, list[int]] = {}
            played_records = []
            for case in [*suite, *twins]:
                record = play_scripted(Job(case, case.condition, 0), agent)
                played_records.append(record)
                bar.advance(task)
                if case.condition != "original":
                    continue
                for key in (case.protocol.value, "all"):
                    rates.setdefault(key, []).append(record.verdict.score)  # type: ignore[union-attr]
            baselines[name] = {k: (sum(v), len(v)) for k, v in rates.items()}
            paired = paired_ecs(played_records)
            harmful = harmful_action_rates(played_records, {c.id: c.protocol.value for c in suite})
            # a protocol the suite lacks (or whose cases have no twins) has no pair: no entry
            judgement[name] = {f"paired {p}": (int(paired[p].successes), paired[p].n) for p in ACTING if p in paired}
            judgement[name].update({f"harmful {k}": (int(r.successes), r.n) for k, r in harmful.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(suite_statistics(suite, lint_case), baselines, judgement), encoding="utf-8")


@suite_app.command("new")
def suite_new(
    directory: Annotated[Path, typer.Argument(help="the new suite folder (must not exist or be empty)")],
) -> None:
    """Start your own suite: DIR/families with an example domain (tools, policies, one family)."""
    from ..suite.families import FamiliesError, scaffold

    try:
        families = scaffold(directory)
    except (FamiliesError, OSError) as exc:
        raise fail(str(exc)) from None
    console.print(f"wrote the example domain to {families}")
    console.print(
        f"next: safeactbench suite build --from {families}\n"
        f"      safeactbench validate --suite {directory}\n"
        f"      safeactbench run --suite {directory} --agent reference --out runs/mine"
    )


@suite_app.command("build")
def suite_build(
    out: Annotated[
        Path | None,
        typer.Option(help="directory to write (default: the folder holding --from, else the package data)"),
    ] = None,
    from_dir: Annotated[
        Path | None,
        typer.Option("--from", help="a families folder (as `suite new` writes it); default: the packaged domains"),
    ] = None,
    name: Annotated[str | None, typer.Option(help="the suite's name in its manifest (default: the folder's)")] = None,
    suite_version: Annotated[str, typer.Option(help="the suite's version in its manifest (with --from)")] = "0.1.0",
) -> None:
    """Build a suite deterministically from scenario families: the packaged ones, or yours (--from)."""
    from ..suite.build import build_suite
    from ..suite.data import DATA_DIR, SUITE_NAME, SUITE_VERSION, write_suite
    from ..suite.families import FamiliesError, load_domains

    if from_dir is None:
        from ..domains import DOMAINS

        domains, target, label, version = DOMAINS, out or DATA_DIR, SUITE_NAME, SUITE_VERSION
    else:
        target = out or from_dir.resolve().parent
        label, version = name or target.resolve().name, suite_version
        try:
            domains = load_domains(from_dir)
        except FamiliesError as exc:
            raise fail(f"--from: {exc}") from None
    try:
        cases = build_suite(domains)
    except ValueError as exc:
        raise fail(str(exc)) from None
    manifest = write_suite(cases, target, name=label, version=version)
    console.print(f"wrote {manifest['cases']} cases (suite {label} {version}) to {target}")
    console.print(manifest["by_protocol"], manifest["by_domain"])
