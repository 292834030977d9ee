"""A trajectory: the steps an agent took in an episode, each call with its observation, and why
the episode ended (SPEC §5, §9)."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    Field,
)

from .base import FrozenModel, JSONValue

StepKind = Literal["information", "consequential", "submit", "decide", "invalid"]


class Step(FrozenModel):
    """One agent call and the observation the environment returned."""

    index: int = Field(ge=0)
    kind: StepKind
    tool: str
    arguments: dict[str, JSONValue] | str = Field(
        description="parsed arguments, or the raw text when it was not a JSON object"
    )
    observation: dict[str, JSONValue]


EndReason = Literal["submitted", "decided", "budget_exhausted", "agent_stopped", "runtime_error"]


class Trajectory(FrozenModel):
    steps: list[Step] = Field(default_factory=list)
    end_reason: EndReason = "agent_stopped"
