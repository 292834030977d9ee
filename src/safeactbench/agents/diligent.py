"""Diligence as a baseline: a crawl of the world, then actions with every written re-read rule kept.

`comply` and `oracle_judge` share it and differ only in judgement: `comply` always does what the
task asks; `oracle_judge` does it only where the gold says so and otherwise submits the gold stop.
Both use hidden case data (the world's ids, the reference solution's reads and actions), so they
bound what diligence alone - or diligence with perfect judgement - can score.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.episode import DECIDE, SUBMIT, Episode
from ..core.model import Case, ScriptStep, make_ref
from ..core.script import run_step
from ..core.tool_spec import InfoEffect

# calls each expected action may need besides itself: a re-read of what an earlier action changed
REREADS_PER_ACTION = 2


def _get_tools(case: Case) -> dict[str, tuple[str, str]]:
    """record type -> (get tool, id parameter)."""
    out: dict[str, tuple[str, str]] = {}
    for tool in case.tools:
        effect = tool.effect
        if isinstance(effect, InfoEffect) and effect.op == "get" and effect.id_param:
            out.setdefault(effect.record_type, (tool.name, effect.id_param))
    return out


def _records(observation: dict[str, Any]) -> list[dict[str, Any]]:
    if isinstance(observation.get("record"), dict):
        return [observation["record"]]
    return [r for r in observation.get("records") or [] if isinstance(r, dict)]


@dataclass
class Diligence:
    """One episode played diligently: remembers what it read, and which of it may have changed since."""

    episode: Episode
    readers: dict[str, tuple[str, str]] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)
    stale: dict[str, None] = field(default_factory=dict)  # refs to read again before acting (ordered)
    live: dict[str, None] = field(default_factory=dict)  # records marked live: re-read before each action

    def __post_init__(self) -> None:
        self.readers = _get_tools(self.episode.case)

    def call(self, step: ScriptStep) -> dict[str, Any]:
        observation = run_step(self.episode, step, self.results)
        applied = observation.get("status") == "applied"
        for record in _records(observation):
            ref = make_ref(str(record.get("type")), str(record.get("id")))
            if applied:  # what an action created or changed is read again before it is relied on
                self.stale[ref] = None
                continue
            self.read.add(ref)
            self.stale.pop(ref, None)
            if (record.get("fields") or {}).get("live") is True:
                self.live[ref] = None
        return observation

    def get(self, ref: str) -> ScriptStep | None:
        record_type, _, record_id = ref.partition(":")
        reader = self.readers.get(record_type)
        return None if reader is None else ScriptStep(tool=reader[0], arguments={reader[1]: record_id})

    def crawl(self, reserve: int) -> None:
        """The reference solution's reads (this case's evidence), then a get of every other record of
        the world, while more than `reserve` calls of the budget are left."""
        case = self.episode.case
        reads = [s for s in case.reference if s.action_id is None and s.tool not in (SUBMIT, DECIDE)]
        for step in self._within(reserve, reads):
            self.call(step)
        others = (self.get(r.ref) for r in case.records if r.ref not in self.read)
        for step in self._within(reserve, (s for s in others if s is not None)):
            self.call(step)

    def _within(self, reserve: int, steps: Iterable[ScriptStep]) -> Iterable[ScriptStep]:
        for step in steps:
            if self.episode.done or len(self.episode.steps) + reserve >= self.episode.case.budget:
                return
            yield step

    def refresh(self, reserve: int) -> None:
        """Read again what may have changed since it was read: what its own actions changed or created,
        and every live record (POL-LIVE-01: read a live record again immediately before an action)."""
        for ref in [*self.stale, *self.live]:
            step = self.get(ref)
            if step is not None:
                for call in self._within(reserve, [step]):
                    self.call(call)

    def act(self, actions: list[ScriptStep]) -> None:
        """The actions in order, each after a refresh of what it may depend on."""
        for n, step in enumerate(actions):
            if self.episode.done:
                return
            self.refresh(reserve=len(actions) - n + 1)
            self.call(step)
