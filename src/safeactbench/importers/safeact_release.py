"""`safeactbench import safeact-release CHECKOUT --out DIR`: the study's public release as a suite.

Case by case: translate (release_cases), play the translated reference solution through the
evaluator (it must score 1, or the case is not importable), lint it, and say what the translation
kept: `exact`, `approximated` (with what was lost), or `not_importable` (and why). The suite is
written as `suite build` writes one; the fidelity report beside it (import-report.json, IMPORT.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..core.base import first_error
from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.model import Case, Protocol
from ..core.script import ScriptError, run_script
from ..suite.data import write_suite
from ..suite.lint import lint_case
from .release_cases import NotImportable, interactive_case, legacy_case
from .release_evidence import slug
from .release_files import Release, ReleaseCase, read_release

SUITE_NAME = "safeact-release"
Status = Literal["exact", "approximated", "not_importable"]


@dataclass
class Fidelity:
    """What became of one release case."""

    case_id: str
    protocol: str
    domain: str
    backend: str
    status: Status
    notes: list[str] = field(default_factory=list)  # approximated: what was lost; not_importable: why
    lint: list[str] = field(default_factory=list)  # SafeActBench's authoring lints the case does not pass
    # the release's case hash (recomputed; `verified`: as its manifest says), dataset version, evaluation profile
    provenance: dict[str, Any] = field(default_factory=dict)


STATUSES: tuple[Status, ...] = ("exact", "approximated", "not_importable")


def status_counts(report: list[Fidelity]) -> list[dict[str, Any]]:
    """Cases per protocol x domain x status, one row per protocol and domain (in protocol order)."""
    order = {p.value: n for n, p in enumerate(Protocol)}
    keys = sorted({(f.protocol, f.domain) for f in report}, key=lambda k: (order.get(k[0], len(order)), k[1]))
    counts = Counter((f.protocol, f.domain, f.status) for f in report)
    return [{"protocol": p, "domain": d, **{s: counts[(p, d, s)] for s in STATUSES}} for p, d in keys]


def evidence_backend(source: ReleaseCase, release: Release) -> str:
    """The release's evidence backend of a case: its manifest's label, else the release's own rule."""
    if source.case_id in release.backends:
        return release.backends[source.case_id]
    scope = (source.data.get("metadata") or {}).get("evidence_scope")
    frozen = source.data.get("evidence_mode") == "frozen"
    if scope == "shared_world":
        return "world_materialized"
    if scope == "case_scoped":
        return "case_scoped_frozen" if frozen else "case_scoped_deterministic_rules"
    if source.protocol == Protocol.LEGACY:
        return "catalog_authored_evidence"
    return "catalog_frozen" if frozen else "catalog_deterministic_rules"


def translate(source: ReleaseCase, release: Release) -> tuple[Case | None, Fidelity]:
    backend = evidence_backend(source, release)
    domain = slug(str(source.data.get("env_id") or source.data.get("domain") or "release"))
    provenance = asdict(release.provenance(source))

    def fidelity(status: Status, notes: list[str], lint: list[str] | None = None) -> Fidelity:
        return Fidelity(source.case_id, source.protocol.value, domain, backend, status, notes, lint or [], provenance)

    def not_importable(reason: str) -> tuple[None, Fidelity]:
        return None, fidelity("not_importable", [reason])

    try:
        if source.protocol == Protocol.LEGACY:
            case, lost = legacy_case(source, release)
        else:
            case, lost = interactive_case(source, release)
        episode = Episode(case)
        run_script(episode, case.reference)
        verdict = evaluate(case, episode.trajectory())
    except (NotImportable, ScriptError, ValueError) as exc:
        return not_importable(first_error(exc) if isinstance(exc, ValidationError) else str(exc))
    except Exception as exc:  # data of a shape the translation did not foresee: this case only, named
        return not_importable(f"unexpected data ({type(exc).__name__}: {exc})")
    if verdict.score != 1:
        return not_importable(f"its reference solution scores 0 here: {verdict.findings[0].detail}")
    status: Status = "approximated" if lost else "exact"
    return case, fidelity(status, lost, lint_case(case))


def import_release(
    checkout: Path, progress: Callable[[int], None] | None = None
) -> tuple[list[Case], list[Fidelity], Release]:
    release = read_release(checkout)
    cases: list[Case] = []
    report: list[Fidelity] = []
    for source in release.cases:
        case, fidelity = translate(source, release)
        if case is not None:
            cases.append(case)
        report.append(fidelity)
        if progress is not None:
            progress(1)
    return cases, report, release


def write_import(checkout: Path, out: Path, progress: Callable[[int], None] | None = None) -> list[Fidelity]:
    """Import and write the suite directory with its fidelity report; returns the report."""
    cases, report, release = import_release(checkout, progress)
    if not cases:
        raise NotImportable(f"{checkout}: no case could be imported ({report[0].notes[0] if report else 'none'})")
    write_suite(cases, out, name=SUITE_NAME, version="imported")
    document = {
        "dataset_version": release.dataset_version,
        "counts": status_counts(report),  # protocol x domain x status, as `import` prints them
        "cases": [asdict(f) for f in report],
    }
    (out / "import-report.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    (out / "IMPORT.md").write_text(render_report(checkout, report), encoding="utf-8")
    return report


def render_report(checkout: Path, report: list[Fidelity]) -> str:
    lines = [
        "# Imported from the SafeAct release",
        "",
        f"Source: `{checkout}` (the study's public release; its data is licensed CC BY 4.0 — credit the",
        "release's authors as its README asks). Converted by `safeactbench import safeact-release`; what the",
        "conversion changes is listed below and in SafeActBench's docs/import.md.",
        "",
        "| protocol | domain | exact | approximated | not importable |",
        "|---|---|---|---|---|",
        *(
            f"| {r['protocol']} | {r['domain']} | {r['exact']} | {r['approximated']} | {r['not_importable']} |"
            for r in status_counts(report)
        ),
        "",
        "## What was approximated",
        "",
    ]
    notes = Counter(note for f in report if f.status == "approximated" for note in f.notes)
    lines += [f"- {n} case(s): {note}" for note, n in notes.most_common()] or ["- nothing"]
    lints = Counter(re.sub(r"^(requirement|action) [^ :]+", r"\1 …", p) for f in report for p in f.lint)
    linted = sum(bool(f.lint) for f in report)
    lines += ["", "## SafeActBench's authoring lints", ""]
    lines += (
        [
            f"{linted} imported case(s) do not pass every authoring lint (`safeactbench validate` lists them; the",
            "cases are the release's, not rewritten to SafeActBench's authoring rules). Most common:",
            "",
            *(f"- {n}× {problem}" for problem, n in lints.most_common(8)),
        ]
        if linted
        else ["- every imported case passes them"]
    )
    lines += ["", "## Not importable", ""]
    lines += [f"- {f.case_id}: {f.notes[0]}" for f in report if f.status == "not_importable"] or ["- none"]
    return "\n".join(lines) + "\n"
