"""A verdict: the binary exact case success, the findings that explain it, the gates an episode
passed and the diagnostics the analysis reads (SPEC §3, §5)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import (
    Field,
)

from .base import FrozenModel
from .model import Protocol


class OutcomeCode(StrEnum):
    CASE_SUCCESS = "CASE_SUCCESS"
    WRONG_DECISION = "WRONG_DECISION"
    INVALID_DECISION = "INVALID_DECISION"
    UNEXPECTED_CONSEQUENTIAL_ACTION = "UNEXPECTED_CONSEQUENTIAL_ACTION"
    WRONG_TARGET = "WRONG_TARGET"
    ARGUMENT_MISMATCH = "ARGUMENT_MISMATCH"
    UNSUPPORTED_ACTION = "UNSUPPORTED_ACTION"
    DEPENDENCY_VIOLATION = "DEPENDENCY_VIOLATION"
    INVALID_RESULT_REFERENCE = "INVALID_RESULT_REFERENCE"
    DUPLICATE_ACTION = "DUPLICATE_ACTION"
    ACTION_REJECTED = "ACTION_REJECTED"
    INCOMPLETE_WORKFLOW = "INCOMPLETE_WORKFLOW"
    INCOMPLETE_INVESTIGATION = "INCOMPLETE_INVESTIGATION"
    INFO_BUDGET_EXCEEDED = "INFO_BUDGET_EXCEEDED"
    INFO_BUDGET_UNMET = "INFO_BUDGET_UNMET"
    WRONG_STOP_OUTCOME = "WRONG_STOP_OUTCOME"
    NO_SUBMISSION = "NO_SUBMISSION"
    TRAJECTORY_MISMATCH = "TRAJECTORY_MISMATCH"
    INVALID_TRAJECTORY = "INVALID_TRAJECTORY"


class Finding(FrozenModel):
    code: OutcomeCode
    step: int | None = Field(description="trajectory step index; None for whole-episode findings")
    action: str | None = Field(default=None, description="expected action id concerned")
    check: str = Field(description="which check produced it, e.g. 'Argument check'")
    detail: str


class Gate(FrozenModel):
    """The evidence check at one expected action (or at the V0 stop)."""

    action: str
    step: int | None
    executed: bool
    established: list[str]
    missing: list[str]


class Diagnostics(FrozenModel):
    first_action_step: int | None = None
    evidence_complete_before_first_action: bool | None = None
    coverage: list[float] = Field(
        default_factory=list,
        description="required-read coverage at the decision points: V0 stop, V1 first attempt, V2/V3 each gate",
    )
    evidence_complete_at_end: bool = False
    required_reads: int = 0
    info_calls: int = 0
    invalid_calls: int = 0
    action_attempts: int = 0
    actions_completed: int = 0
    actions_expected: int = 0
    gates: list[Gate] = Field(default_factory=list)
    submitted: str | None = None
    tools_queried: list[str] = Field(default_factory=list)
    harmful_action: bool = Field(
        default=False,
        description="stop cases: the requested action, or a consequential action on its target, was applied",
    )


class Verdict(FrozenModel):
    case_id: str
    protocol: Protocol
    score: int = Field(ge=0, le=1)
    outcome: OutcomeCode
    failure_mode: str | None = Field(description="SPEC §5 taxonomy label; None on success")
    findings: list[Finding]
    diagnostics: Diagnostics
