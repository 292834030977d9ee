"""What an agent may see of a case (SPEC §2): task, stated ids, the full tool list, now, budget.

Hidden: the protocol, the case id (it names the protocol), records until read, requirements,
expected actions, gold outcomes and which record is decisive. Legacy additionally shows its
candidate action and evidence package, because that *is* the Legacy task.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .episode import tool_list
from .model import ActionCall, Case, Protocol, Record


class PublicContextFact(BaseModel):
    model_config = ConfigDict(frozen=True)

    entity: str = Field(description="record ref, e.g. 'charge:CH-1234567'")
    field: str
    value: Any


class PublicCase(BaseModel):
    """The agent-facing view of one episode."""

    model_config = ConfigDict(frozen=True)

    task: str
    context: list[PublicContextFact]
    tools: list[dict[str, Any]]
    now: str
    budget: int
    static: bool = Field(description="True: judge the candidate action, no investigation tools")
    candidate: ActionCall | None = None
    evidence: list[Record] | None = None


def public_view(case: Case) -> PublicCase:
    legacy = case.legacy if case.protocol == Protocol.LEGACY else None
    return PublicCase(
        task=case.task,
        context=[PublicContextFact(entity=c.ref, field=c.field, value=c.value) for c in case.context],
        tools=tool_list(case),
        now=case.now,
        budget=case.budget,
        static=legacy is not None,
        candidate=legacy.candidate if legacy else None,
        evidence=list(legacy.evidence) if legacy else None,
    )
