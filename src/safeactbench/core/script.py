"""Reference solutions are scripts: tool calls whose arguments may name an earlier action's result."""

from __future__ import annotations

from typing import Any

from .episode import Episode
from .model import ResultRef, ScriptStep, resolve_results


class ScriptError(RuntimeError):
    """A script step names a result that was never produced."""


def resolve_arguments(arguments: dict[str, Any], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The arguments with every result reference (at any depth) replaced by what that action returned."""
    out: dict[str, Any] = {}
    for name, value in arguments.items():

        def produced(ref: ResultRef, name: str = name) -> Any:
            found = results.get(ref.result_of, {})
            if ref.key not in found:
                raise ScriptError(f"argument {name!r}: action {ref.result_of!r} produced no {ref.key!r}")
            return found[ref.key]

        out[name] = resolve_results(value, produced)
    return out


def run_step(episode: Episode, step: ScriptStep, results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    observation = episode.call(step.tool, resolve_arguments(step.arguments, results))
    if step.action_id is not None and observation.get("status") == "applied":
        results[step.action_id] = dict(observation.get("result") or {})
    return observation


def run_script(episode: Episode, steps: list[ScriptStep]) -> None:
    results: dict[str, dict[str, Any]] = {}
    for step in steps:
        if episode.done:
            break
        run_step(episode, step, results)
