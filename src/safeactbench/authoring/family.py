"""Scenario families and domains: the units the suite is built from (SPEC §7)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.model import Protocol
from ..core.tool_spec import ToolSpec
from .draft import Draft
from .policy import Policy, policy_tools
from .tools import link_roles

Builder = Callable[[Draft], None]


@dataclass(frozen=True)
class Family:
    """A business situation with its records and rules, instantiated into many cases.

    `build(draft)` fills the draft for `draft.protocol`; for V0 it must honour `draft.want`
    ("BLOCK" or "DEFER") and `draft.workflow` (a multi-step request in which one step is blocked
    or must wait). Legacy cases are rendered from its V1 (ALLOW) and V0 (BLOCK/DEFER) drafts, so
    every family serves Legacy, V0 and V1, plus the workflow protocols it lists.
    """

    name: str
    title: str
    build: Builder
    workflows: tuple[Protocol, ...] = (Protocol.V2, Protocol.V3)

    @property
    def protocols(self) -> tuple[Protocol, ...]:
        return (Protocol.LEGACY, Protocol.V0, Protocol.V1, *self.workflows)


@dataclass(frozen=True)
class Domain:
    name: str
    title: str
    tools: list[ToolSpec]
    families: list[Family]
    policies: list[Policy] = field(default_factory=list)
    world_size: tuple[int, int] | None = (36, 52)  # records per world besides the policies (None: scenario only)
    # interchangeable names (homes, sites …): a background copy of a record takes another one of its pool
    name_pools: tuple[tuple[str, ...], ...] = ()
    now: str = "2026-03-10T09:00:00Z"  # the latest case time: cases spread over the year before it
    # cases per protocol; None: the packaged suite's composition table (suite.build.COMPOSITION)
    composition: dict[Protocol, int] | None = None

    @property
    def case_tools(self) -> list[ToolSpec]:
        """What a case of the domain offers: its tools, plus the policy tools when it has policies, with
        the roles of their link filters declared (`link_roles`)."""
        return link_roles(self.tools + (policy_tools(self.title) if self.policies else []))

    def family(self, name: str) -> Family:
        for f in self.families:
            if f.name == name:
                return f
        raise KeyError(f"domain {self.name!r} has no family {name!r}")
