"""Harness probes: scripted agents with one behaviour each, for checking that every harness stores
the same behaviour the same way (docs/harnesses.md, the outcome rule). They are not baselines and
are not in the report's agent list; every entry point that takes a scripted agent takes them
(`--agent`, `serve-agent`, `--model safeactbench/NAME`).

- `give_up` reads the first thing it can, then stops without submitting ("I cannot complete this");
- `misnamed_call` calls a tool nobody offers, then stops;
- `invalid_arguments` calls the first tool with arguments that do not fit it, then stops.

Each is a completed, scored episode (`agent_stopped`, score 0) on every harness: the agent, not
the harness, ended it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..core.episode import DECIDE, Episode
from ..core.public import PublicCase
from ._heuristics import TERMINAL, fill_arguments

UNOFFERED_TOOL = "lookup_everything"  # no suite offers it (tests/test_harness_outcomes.py checks)


def _first_tool(view: PublicCase) -> dict[str, Any] | None:
    return next((t for t in view.tools if t["name"] not in TERMINAL), None)


@dataclass
class GiveUp:
    name: str = "give_up"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        tool = _first_tool(view)
        if tool is not None:
            episode.call(tool["name"], fill_arguments(tool, view))


@dataclass
class MisnamedCall:
    name: str = "misnamed_call"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        episode.call(UNOFFERED_TOOL, {})


@dataclass
class InvalidArguments:
    name: str = "invalid_arguments"

    def play(self, episode: Episode, view: PublicCase, rng: random.Random) -> None:
        tool = _first_tool(view)
        if tool is None:  # a static case: a decision that is not one
            episode.call(DECIDE, {"decision": "MAYBE"})
        else:
            episode.call(tool["name"], {"unexpected": True})


PROBES = {p.name: p for p in (GiveUp(), MisnamedCall(), InvalidArguments())}
