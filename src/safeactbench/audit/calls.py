"""Call scripts: the scripted agent calls a mutant is made of, and `play`, which runs them through a
real `Episode` so every observation is genuine."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.episode import Episode
from ..core.model import Case, ResultRef, resolve_results
from ..core.values import is_number
from .played import Played

Expect = Literal["fail", "pass"]


@dataclass(frozen=True)
class Call:
    """One scripted agent call. Argument values may hold `ResultRef`s (at any depth), resolved when
    played to the value the named action actually returned (or a placeholder if it has not run yet)."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    action_id: str | None = None
    as_text: Literal["plain", "trailing_zero", "exponent"] | None = None  # JSON text, keys reversed


@dataclass(frozen=True)
class Mutant:
    case_id: str
    protocol: str
    operator: str
    expect: Expect
    note: str
    calls: tuple[Call, ...]
    oracle: tuple[str, ...] = ()  # what the label oracle finds invalid in it (empty: valid)
    by_oracle: bool = False  # the oracle decided the label (else the operator did, by construction)


def _unresolved(ref: ResultRef) -> str:
    return f"UNRESOLVED-{ref.result_of}-{ref.key}"


def number_text(value: Any, style: str) -> str:
    if style == "plain" or isinstance(value, bool) or not is_number(value):
        return json.dumps(value)
    text = repr(value)
    if "e" in text or "inf" in text or "nan" in text:
        return json.dumps(value)
    if style == "trailing_zero":
        return text + ("0" if "." in text else ".0")
    sign = "-" if text.startswith("-") else ""
    whole, _, frac = text.lstrip("-").partition(".")
    digits = (whole + frac).lstrip("0") or "0"
    return f"{sign}{digits}00e{-len(frac) - 2}"


def _encode(call: Call, results: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | str:
    def lookup(ref: ResultRef) -> Any:
        return results.get(ref.result_of, {}).get(ref.key, _unresolved(ref))

    args = {name: resolve_results(v, lookup) for name, v in call.arguments.items()}
    if call.as_text is None:
        return args
    style = call.as_text
    return "{" + ", ".join(f"{json.dumps(k)}: {number_text(v, style)}" for k, v in reversed(args.items())) + "}"


def play(case: Case, calls: Sequence[Call]) -> Played:
    """Play a call script through a real Episode (the agent stops after its last call)."""
    episode = Episode(case)
    results: dict[str, dict[str, Any]] = {}
    action_steps: dict[str, int] = {}
    versions = [episode.world.versions()]
    for call in calls:
        if episode.done:
            break
        observation = episode.call(call.tool, _encode(call, results))
        versions.append(episode.world.versions())
        if call.action_id is not None and observation.get("status") == "applied":
            results.setdefault(call.action_id, dict(observation.get("result") or {}))
            action_steps.setdefault(call.action_id, len(episode.steps) - 1)
    episode.stop()
    return Played(episode.trajectory(), action_steps, results, versions)


def reference_calls(case: Case) -> list[Call]:
    return [Call(s.tool, dict(s.arguments), s.action_id) for s in case.reference]
