"""The evaluator's state while it replays a trajectory: the actions executed, their results and
arguments, the findings so far, and the check that a requirement is established by a ledger fact
before a given step (SPEC §4-§5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .ledger import Ledger
from .model import (
    ArgRef,
    Case,
    DynamicRef,
    Requirement,
    ResultRef,
    make_ref,
)
from .trajectory import Step
from .values import describe, is_blank
from .verdict import Finding, Gate
from .verdict import OutcomeCode as C
from .world import InvalidArguments, id_text, parse_arguments


@dataclass
class Replay:
    """Mutable bookkeeping while the action steps are checked."""

    case: Case
    steps: list[Step]
    ledger: Ledger
    findings: list[Finding] = field(default_factory=list)
    executed: dict[str, int] = field(default_factory=dict)  # action id -> step
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    gates: dict[str, Gate] = field(default_factory=dict)
    first_attempt: int | None = None
    first_attempt_action: str | None = None
    attempts: int = 0
    called: dict[str, dict[str, Any]] = field(default_factory=dict)  # action id -> arguments of its latest call

    def add(self, code: C, step: int | None, check: str, detail: str, action: str | None = None) -> None:
        self.findings.append(Finding(code=code, step=step, action=action, check=check, detail=detail))

    # -- references --------------------------------------------------------------------------
    def resolve_ref(self, ref: DynamicRef | ArgRef | str | None) -> str | None:
        if ref is None or isinstance(ref, str):
            return ref
        if isinstance(ref, ArgRef):  # the record the agent's call of that action named (trimmed, as compared)
            value = self.called.get(ref.action, {}).get(ref.arg)
            if is_blank(value) or isinstance(value, dict | list):
                return None
            return make_ref(ref.type, argument_id(value))
        value = self.result_value(ref.id)
        return None if value is None else make_ref(ref.type, str(value))

    def result_value(self, ref: ResultRef) -> Any:
        return self.results.get(ref.result_of, {}).get(ref.key)

    # -- evidence -----------------------------------------------------------------------------
    def check_requirements(self, req_ids: list[str], before: int) -> tuple[list[str], list[str]]:
        established: list[str] = []
        missing: list[str] = []
        for req_id in req_ids:
            req = self.case.requirement(req_id)
            ref = self.resolve_ref(req.ref)
            ok = ref is not None and self.ledger.establishing_fact(req, ref, before, self.executed) is not None
            (established if ok else missing).append(req_id)
        return established, missing


def parsed_args(step: Step) -> dict[str, Any]:
    try:
        return parse_arguments(step.arguments)
    except InvalidArguments:
        return {}


def argument_id(value: Any) -> str:
    """A record id an agent passed as an argument, as the evaluator compares it: trimmed, a number by
    its value (the world looks ids up exactly, so a padded one is refused there, not mismatched here)."""
    return id_text(value.strip() if isinstance(value, str) else value)


def describe_requirement(req: Requirement, ref: str | None) -> str:
    if ref is None:
        if isinstance(req.ref, DynamicRef):
            ref = f"{req.ref.type}:<{req.ref.id.key} of {req.ref.id.result_of}>"
        elif isinstance(req.ref, ArgRef):
            ref = f"{req.ref.type}:<{req.ref.arg} of {req.ref.action}>"
        else:
            ref = str(req.ref)
    via = f" (via {', '.join(req.via)})" if req.via else ""
    if req.operator == "absent":
        return f"{ref} absent (a read that finds no such record){via}"
    value = "" if req.operator == "exists" else f" {req.operator} {describe(req.value)}"
    return f"{ref}.{req.field}{value}{via}"
