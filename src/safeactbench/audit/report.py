"""The audit report: tallies of false acceptances and rejections per operator and per protocol, as
JSON and as Markdown (docs/audit.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..suite.model_use import CONCEPTS
from .calls import Expect, Mutant
from .operators import OPERATORS

PROTOCOL_ORDER = ("Legacy", "V0", "V1", "V2", "V3")


@dataclass
class Tally:
    mutants: int = 0
    must_fail: int = 0
    must_pass: int = 0
    false_accepts: int = 0
    false_rejects: int = 0

    @property
    def false_accept_rate(self) -> float | None:
        return self.false_accepts / self.must_fail if self.must_fail else None

    @property
    def false_reject_rate(self) -> float | None:
        return self.false_rejects / self.must_pass if self.must_pass else None

    def add(self, expect: Expect, score: int) -> None:
        self.mutants += 1
        if expect == "fail":
            self.must_fail += 1
            self.false_accepts += score == 1
        else:
            self.must_pass += 1
            self.false_rejects += score == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "mutants": self.mutants,
            "must_fail": self.must_fail,
            "must_pass": self.must_pass,
            "false_accepts": self.false_accepts,
            "false_accept_rate": self.false_accept_rate,
            "false_rejects": self.false_rejects,
            "false_reject_rate": self.false_reject_rate,
        }


@dataclass
class AuditReport:
    seed: int
    sample: int | None
    cases: int = 0
    cases_by_protocol: dict[str, int] = field(default_factory=dict)
    cases_by_condition: dict[str, int] = field(default_factory=dict)  # variants audited beside the cases

    total: Tally = field(default_factory=Tally)
    operators: dict[str, Tally] = field(default_factory=dict)
    protocols: dict[str, Tally] = field(default_factory=dict)
    concepts: dict[str, Tally] = field(default_factory=dict)  # mutants of the cases exercising each concept
    matrix: dict[str, dict[str, int]] = field(default_factory=dict)  # operator -> protocol -> mutants
    caught_by: dict[str, dict[str, int]] = field(default_factory=dict)  # operator -> outcome code (must-fail)
    failures: list[dict[str, Any]] = field(default_factory=list)  # every false acceptance / rejection
    reference_failures: list[str] = field(default_factory=list)
    inconsistencies: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def command(self) -> str:
        """The command line that writes this report."""
        variants = [c for c in self.cases_by_condition if c != "original"]
        sample = [f"--sample {self.sample}"] if self.sample is not None else []
        conditions = [f"--conditions {','.join(variants)}"] if variants else []
        return " ".join(["safeactbench audit", *sample, *conditions])

    @property
    def ok(self) -> bool:
        return not (
            self.total.false_accepts
            or self.total.false_rejects
            or self.reference_failures
            or self.inconsistencies
            or self.errors
        )

    def record(self, mutant: Mutant, score: int, outcome: str, detail: str, concepts: Iterable[str] = ()) -> None:
        self.total.add(mutant.expect, score)
        for concept in concepts:
            self.concepts.setdefault(concept, Tally()).add(mutant.expect, score)
        self.operators.setdefault(mutant.operator, Tally()).add(mutant.expect, score)
        self.protocols.setdefault(mutant.protocol, Tally()).add(mutant.expect, score)
        row = self.matrix.setdefault(mutant.operator, {})
        row[mutant.protocol] = row.get(mutant.protocol, 0) + 1
        if mutant.expect == "fail" and score == 0:
            codes = self.caught_by.setdefault(mutant.operator, {})
            codes[outcome] = codes.get(outcome, 0) + 1
        if (mutant.expect == "fail") == (score == 1):
            self.failures.append(
                {
                    "case_id": mutant.case_id,
                    "protocol": mutant.protocol,
                    "operator": mutant.operator,
                    "expected": mutant.expect,
                    "score": score,
                    "outcome": outcome,
                    "mutation": mutant.note,
                    "detail": detail,
                }
            )

    def _sorted(self) -> None:
        rank = {name: i for i, name in enumerate(OPERATORS)}
        every = {name: Tally() for name in OPERATORS} | self.operators  # an operator without mutants shows as 0
        self.operators = dict(sorted(every.items(), key=lambda kv: rank.get(kv[0], len(rank))))
        self.protocols = {p: self.protocols[p] for p in PROTOCOL_ORDER if p in self.protocols}
        self.concepts = {c: self.concepts[c] for c in CONCEPTS if c in self.concepts}
        self.matrix = {
            op: {p: self.matrix[op][p] for p in PROTOCOL_ORDER if p in self.matrix.get(op, {})} for op in self.operators
        }
        self.caught_by = {
            op: dict(sorted(self.caught_by[op].items(), key=lambda kv: (-kv[1], kv[0])))
            for op in self.operators
            if op in self.caught_by
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "sample": self.sample,
            "cases": self.cases,
            "cases_by_protocol": self.cases_by_protocol,
            "cases_by_condition": self.cases_by_condition,
            "ok": self.ok,
            "total": self.total.to_dict(),
            "operators": {
                name: {"kind": OPERATORS[name][0], "description": OPERATORS[name][1], **t.to_dict()}
                for name, t in self.operators.items()
            },
            "protocols": {name: t.to_dict() for name, t in self.protocols.items()},
            "concepts": {name: t.to_dict() for name, t in self.concepts.items()},
            "mutants_by_operator_and_protocol": self.matrix,
            "must_fail_caught_by": self.caught_by,
            "failures": self.failures,
            "reference_failures": self.reference_failures,
            "inconsistencies": self.inconsistencies,
            "errors": self.errors,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuditReport:
        """A report read back from its JSON (`to_dict`), to render it again."""

        def tally(d: dict[str, Any]) -> Tally:
            return Tally(d["mutants"], d["must_fail"], d["must_pass"], d["false_accepts"], d["false_rejects"])

        return cls(
            seed=data["seed"],
            sample=data["sample"],
            cases=data["cases"],
            cases_by_protocol=data["cases_by_protocol"],
            cases_by_condition=data["cases_by_condition"],
            total=tally(data["total"]),
            operators={name: tally(t) for name, t in data["operators"].items()},
            protocols={name: tally(t) for name, t in data["protocols"].items()},
            concepts={name: tally(t) for name, t in data["concepts"].items()},
            matrix=data["mutants_by_operator_and_protocol"],
            caught_by=data["must_fail_caught_by"],
            failures=data["failures"],
            reference_failures=data["reference_failures"],
            inconsistencies=data["inconsistencies"],
            errors=data["errors"],
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        def pct(rate: float | None) -> str:
            return "-" if rate is None else f"{100 * rate:.2f}%"

        def row(name: str, t: Tally, *extra: str) -> str:
            cells = [
                name,
                *extra,
                str(t.mutants),
                str(t.must_fail),
                str(t.must_pass),
                str(t.false_accepts),
                pct(t.false_accept_rate),
                str(t.false_rejects),
                pct(t.false_reject_rate),
            ]
            return "| " + " | ".join(cells) + " |"

        head = "mutants | must fail | must pass | false acc. | FA rate | false rej. | FR rate |"
        scope = "the suite" if self.sample is None else f"a sample of {self.sample} cases (seed {self.seed})"
        verdict = "PASS" if self.ok else "FAIL"
        lines = [
            "# Evaluator audit",
            "",
            f"Generated by `{self.command}` (`safeactbench.audit.run_audit`); do not edit by hand.",
            "",
            f"**{verdict}** - {self.cases} cases of {scope}: {self.total.mutants} mutants "
            f"({self.total.must_fail} must fail, {self.total.must_pass} must pass), "
            f"**{self.total.false_accepts} false acceptances** and **{self.total.false_rejects} false rejections**.",
            "",
            "Cases by protocol (as played: a stop twin is a V0 case): "
            + ", ".join(f"{p} {n}" for p, n in self.cases_by_protocol.items())
            + "; by condition: "
            + ", ".join(f"{c} {n}" for c, n in self.cases_by_condition.items())
            + ".",
            "",
            "Every mutant is a call script played through a real episode and scored by `evaluate`. "
            "*must fail* mutants invalidate the trajectory (a false acceptance is one that scored 1); "
            "*must pass* mutants are valid variants (a false rejection is one that scored 0). "
            "Where the label depends on evidence (a dropped read another read re-establishes, a hoisted "
            "read that may go stale, another record chosen) it is decided by an independent label oracle, "
            "so such operators carry both labels: SPEC §3-§4 re-stated from the played trajectory alone, with "
            "its own value comparison and its own replay of record versions, importing nothing of the "
            "evaluator, the ledger or the world. Every label an operator fixes by construction is checked "
            "against the oracle as well (self-checks below).",
            "",
            "## By operator",
            "",
            f"| operator | kind | {head}",
            "|---|---|" + "---:|" * 7,
        ]
        lines += [row(f"`{name}`", t, OPERATORS[name][0]) for name, t in self.operators.items()]
        lines += [row("**all**", self.total, "")]
        lines += ["", "## By protocol", "", f"| protocol | {head}", "|---|" + "---:|" * 7]
        lines += [row(name, t) for name, t in self.protocols.items()]
        lines += [row("**all**", self.total)]
        if self.concepts:
            lines += [
                "",
                "## Cases exercising each concept of the case model",
                "",
                "The mutants of the cases that use a concept (a case may use several; SPEC §7).",
                "",
                f"| concept | {head}",
                "|---|" + "---:|" * 7,
            ]
            lines += [row(CONCEPTS[name], t) for name, t in self.concepts.items()]
        protocols = list(self.protocols)
        lines += [
            "",
            "## Mutants per operator and protocol",
            "",
            "| operator | " + " | ".join(protocols) + " |",
            "|---|" + "---:|" * len(protocols),
        ]
        for name, counts in self.matrix.items():
            lines.append(f"| `{name}` | " + " | ".join(str(counts.get(p, 0)) for p in protocols) + " |")
        lines += ["", "## What caught the must-fail mutants (primary outcome code)", ""]
        for name, codes in self.caught_by.items():
            lines.append(f"- `{name}`: " + ", ".join(f"{code} {n}" for code, n in codes.items()))
        lines += ["", "## Operators", ""]
        lines += [f"- `{name}` ({kind}): {text}" for name, (kind, text) in OPERATORS.items()]
        only_valid = [
            name
            for name, t in self.operators.items()
            if OPERATORS[name][0] == "invalidating" and t.mutants and not t.must_fail
        ]
        if only_valid:
            lines += [
                "",
                "Invalidating operators whose every mutant the oracle found valid on these cases (the mutation "
                "did not remove any evidence a gate needed): " + ", ".join(f"`{n}`" for n in only_valid) + ".",
            ]
        unused = [name for name, t in self.operators.items() if not t.mutants]
        if unused:
            lines += [
                "",
                "Operators without mutants on these cases (none of them has what the operator mutates; "
                "tests/test_audit_concepts.py audits cases built by hand that do): "
                + ", ".join(f"`{n}`" for n in unused)
                + ".",
            ]
        lines += ["", "## Self-checks", ""]
        lines.append(f"- reference solutions that failed: {len(self.reference_failures)}")
        lines.append(f"- labels by construction the label oracle disagrees with: {len(self.inconsistencies)}")
        lines.append(f"- generator errors: {len(self.errors)}")
        lines += [f"  - {problem}" for problem in [*self.reference_failures, *self.errors]]
        lines += [
            f"  - {i['case_id']} `{i['operator']}` {i['mutation']}: expected {i['expected']}, oracle {i['oracle']}"
            for i in self.inconsistencies[:50]
        ]
        lines += ["", "## False acceptances and rejections", ""]
        if not self.failures:
            lines.append("None.")
        for f in self.failures[:200]:
            lines.append(
                f"- {f['case_id']} `{f['operator']}` ({f['mutation']}): expected {f['expected']}, "
                f"scored {f['score']} ({f['outcome']}) - {f['detail']}"
            )
        if len(self.failures) > 200:
            lines.append(f"- ... {len(self.failures) - 200} more in the JSON report")
        return "\n".join(lines) + "\n"
