"""Scripted baseline agents: fast, in-process, deterministic given their seed.

They use the public view only, except `reference`, the oracle that plays the case's hidden
reference solution (it proves every case solvable), `comply`, the always-compliant upper bound
(a perfect crawl and a perfect task parser, no judgement), and `oracle_judge`, the same diligence
with the gold decisions (`diligent`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.episode import DECIDE, SUBMIT, Episode
from ..core.model import ScriptStep
from ..core.public import PublicCase
from ..core.script import run_script
from ._heuristics import action_tools, best_action_tool, fill_arguments, getters, named_entities, named_ids
from .diligent import REREADS_PER_ACTION, Diligence


class Agent(Protocol):
    name: str

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None: ...


def _read_named(episode: Episode, view: PublicCase) -> dict[str, Any]:
    """Read every entity the task names with its get tool; returns the fields observed."""
    readers = getters(view)
    observed: dict[str, Any] = {}
    for record_type, record_id in named_entities(view):
        if record_type in readers and not episode.done:
            tool, param = readers[record_type]
            obs = episode.call(tool, {param: record_id})
            observed.update((obs.get("record") or {}).get("fields") or {})
    return observed


def _act_once(episode: Episode, view: PublicCase, observed: dict[str, Any] | None = None) -> None:
    tool = best_action_tool(view)
    if tool is not None and not episode.done:
        episode.call(tool["name"], fill_arguments(tool, view, observed))


@dataclass
class Reference:
    """Oracle: plays the case's reference solution."""

    name: str = "reference"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        run_script(episode, episode.case.reference)


@dataclass
class Eager:
    """Acts at once on the entities the task names, reads nothing, reports DONE."""

    name: str = "eager"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": "ALLOW"})
            return
        _act_once(episode, view)
        episode.call(SUBMIT, {"outcome": "DONE"})


@dataclass
class Shallow:
    """Reads only the entities named in the task, then acts on what it saw."""

    name: str = "shallow"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": "ALLOW"})
            return
        observed = _read_named(episode, view)
        _act_once(episode, view, observed)
        episode.call(SUBMIT, {"outcome": "DONE"})


@dataclass
class Comply:
    """Diligence without judgement, at its best: crawls the world (the reference solution's reads,
    then every record it can get) as long as the budget leaves room to act, then does exactly what
    the task asks - with the gold arguments, i.e. a perfect task parser - reading again, before each
    action, what its own actions changed and every live record (the written re-read rules), and
    reports DONE. Like `reference` it uses hidden case data; it is the upper bound of an agent that
    always complies. On a stop case (V0, a withheld or contradicted twin) it still does what is asked:
    the requested action, exactly (`StopGold.requested`)."""

    name: str = "comply"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": "ALLOW"})
            return
        case = episode.case
        actions = [step for step in case.reference if step.action_id is not None]
        if case.stop is not None and case.stop.requested is not None:
            actions = [ScriptStep(tool=case.stop.requested.tool, arguments=case.stop.requested.arguments)]
        diligent = Diligence(episode)
        diligent.crawl(reserve=(1 + REREADS_PER_ACTION) * max(1, len(actions)) + 1)
        if actions:
            diligent.act(actions)
        else:
            _act_once(episode, view)
        if not episode.done:
            episode.call(SUBMIT, {"outcome": "DONE"})


@dataclass
class OracleJudge:
    """Comply's diligence with perfect judgement: the same crawl and re-reads, then the gold - the
    actions of an acting case, the gold stop outcome of a stop case. It is the test of paired ECS
    at its upper end: its paired ECS equals its ECS on every acting protocol."""

    name: str = "oracle_judge"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        case = episode.case
        if view.static:
            assert case.legacy is not None
            episode.call(DECIDE, {"decision": case.legacy.decision.value})
            return
        actions = [step for step in case.reference if step.action_id is not None]
        diligent = Diligence(episode)
        diligent.crawl(reserve=(1 + REREADS_PER_ACTION) * max(1, len(actions)) + 1)
        diligent.act(actions)
        if case.stop is not None:
            diligent.refresh(reserve=1)
        if not episode.done:
            episode.call(SUBMIT, {"outcome": case.stop.outcome.value if case.stop else "DONE"})


CLAIM_MARKERS = ("i already checked", "i verified", "i confirmed", "no need to look it up")


@dataclass
class Credulous:
    """Takes the requester's word: acts when the task asserts the facts were checked, else defers."""

    name: str = "credulous"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        claimed = any(marker in view.task.lower() for marker in CLAIM_MARKERS)
        if view.static:
            episode.call(DECIDE, {"decision": "ALLOW" if claimed else "DEFER"})
            return
        observed = _read_named(episode, view)
        if claimed:
            _act_once(episode, view, observed)
        episode.call(SUBMIT, {"outcome": "DONE" if claimed else "DEFER"})


@dataclass
class Skeptic:
    """Reads everything it can about the named entities (gets and searches), then defers."""

    name: str = "skeptic"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": "DEFER"})
            return
        _read_named(episode, view)
        get_tools = {tool for tool, _ in getters(view).values()}
        for tool in view.tools:
            if not tool["read_only"] or tool["name"] in get_tools:
                continue
            args = named_ids(tool, view)
            if args and not episode.done:
                episode.call(tool["name"], args)
        episode.call(SUBMIT, {"outcome": "DEFER"})


@dataclass
class AlwaysStop:
    """Stops at once with a fixed outcome (always-BLOCK / always-DEFER)."""

    outcome: str
    name: str

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": self.outcome})
        else:
            episode.call(SUBMIT, {"outcome": self.outcome})


@dataclass
class RandomAgent:
    """A few random calls with plausible arguments, then a random outcome."""

    name: str = "random"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        if view.static:
            episode.call(DECIDE, {"decision": rng.choice(["ALLOW", "BLOCK", "DEFER"])})
            return
        callable_tools = [t for t in view.tools if t["name"] != SUBMIT]
        for _ in range(rng.randint(1, 6)):
            if episode.done:
                return
            tool = rng.choice(callable_tools)
            episode.call(tool["name"], fill_arguments(tool, view))
        if rng.random() < 0.5 and action_tools(view):
            tool = rng.choice(action_tools(view))
            episode.call(tool["name"], fill_arguments(tool, view))
        episode.call(SUBMIT, {"outcome": rng.choice(["DONE", "BLOCK", "DEFER"])})


AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (
        Reference(),
        Comply(),
        OracleJudge(),
        Eager(),
        Shallow(),
        Skeptic(),
        Credulous(),
        RandomAgent(),
        AlwaysStop("BLOCK", "always_block"),
        AlwaysStop("DEFER", "always_defer"),
    )
}


def get_agent(name: str) -> Agent:
    """A baseline (AGENTS) or a harness probe (`probes`) by name."""
    from .probes import PROBES

    found = AGENTS.get(name) or PROBES.get(name)
    if found is None:
        raise KeyError(f"unknown agent {name!r}; choose one of {sorted(AGENTS)} (harness probes: {sorted(PROBES)})")
    return found
