"""The family CLI harnesses: a model inside its own CLI agent (Codex CLI, Claude Code, Gemini CLI,
OpenCode), run by `inspect_swe` as an Inspect agent.

    safeactbench run --model openai/gpt-5 --harness codex-cli --out runs/gpt5-codex
    inspect eval safeactbench/safeactbench -T harness=codex-cli --model openai/gpt-5

The CLI runs in a sandbox (`bwrap_sandbox`: it sees its own install and an empty work directory,
never the suite, the package or the run); its model calls go through Inspect's agent bridge to the
Inspect model (so any provider works, the scripted agents included, and usage and transcripts are
Inspect's); the episode's tools are host-side Inspect tools bridged to the CLI over MCP, each call
going to the episode as the ReAct harness sends it. The prompt is the same: our system prompt is
appended to the CLI's own, our user prompt is the task.

A call the model made to an episode tool that never reached the episode (the CLI refused it, e.g.
for approval, or lost it) is a harness fault: the sample fails with that reason and is stored as
missing (SPEC §6), never scored as the agent's failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from inspect_ai.agent import Agent, AgentState, BridgedToolsSpec
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolParams

from ..episode import Episode
from ..public import public_view
from ..runconfig import CLI_HARNESSES
from .outcome import EpisodeEnd, missing_reason
from .prompts import system_prompt, tool_description, user_prompt
from .runtime import RuntimeFailure
from .tool_names import episode_tool
from .transcript import model_turn

TOOL_SERVER = "backoffice"  # the MCP server the CLI sees the tools under (neutral: it names no benchmark)


def _codex(**kwargs: Any) -> Agent:
    from inspect_swe import codex_cli

    return codex_cli(web_search="disabled", **kwargs)


def _claude(**kwargs: Any) -> Agent:
    from inspect_swe import claude_code

    return claude_code(**kwargs)


def _gemini(**kwargs: Any) -> Agent:
    from inspect_swe import gemini_cli

    return gemini_cli(**kwargs)


def _opencode(**kwargs: Any) -> Agent:
    from inspect_swe import opencode

    return opencode(**kwargs)


# --harness name -> (inspect_swe agent, the CLI's executable, its npm package)
FAMILY_CLIS: dict[str, tuple[Callable[..., Agent], str, str]] = {
    "codex-cli": (_codex, "codex", "@openai/codex"),
    "claude-code": (_claude, "claude", "@anthropic-ai/claude-code"),
    "gemini-cli": (_gemini, "gemini", "@google/gemini-cli"),
    "opencode": (_opencode, "opencode", "opencode-ai"),
}


assert tuple(FAMILY_CLIS) == CLI_HARNESSES


class HarnessFault(RuntimeFailure):
    """The CLI, not the agent, failed the episode: the sample errors and is stored as missing
    (the message is the reason, `harness_fault: ...`, from the outcome rule)."""


def episode_tools(episode: Episode, received: list[str]) -> list[Tool]:
    """The episode's public tools as Inspect tools: every call goes to the episode as sent (and is
    counted in `received`); the observation comes back as JSON text, as in the other harnesses."""
    tools = []
    for spec in public_view(episode.case).tools:

        async def execute(_name: str = spec["name"], **arguments: Any) -> str:
            received.append(_name)
            return json.dumps(episode.call(_name, arguments), ensure_ascii=False)

        definition = ToolDef(
            execute,
            name=spec["name"],
            description=tool_description(spec),
            parameters=ToolParams.model_validate(spec["parameters"]),
        )
        tools.append(definition.as_tool())
    return tools


def model_calls(messages: list[Any], names: set[str]) -> int:
    """Tool calls the model made to the episode's tools, under their own or a client's name."""
    return sum(
        1
        for message in messages
        if isinstance(message, ChatMessageAssistant)
        for call in message.tool_calls or []
        if episode_tool(call.function, names) is not None
    )


def refused_as_invalid(names: set[str]) -> int:
    """The episode's tool calls Inspect's bridge answered itself, as arguments that do not fit the
    tool's schema: the agent's calls, answered with a structured error (not lost)."""
    from inspect_ai.event import ToolEvent
    from inspect_ai.log import transcript

    return sum(
        1
        for event in transcript().events
        if isinstance(event, ToolEvent) and event.error is not None and event.error.type == "parsing"
        and event.function in names
    )  # fmt: skip


@solver
def cli_episode(harness: str, version: str = "sandbox") -> Solver:
    """Play the sample's episode with the family CLI `harness` (a FAMILY_CLIS key)."""
    make_agent = FAMILY_CLIS[harness][0]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from .inspect_task import TRAJECTORY_KEY, TRANSCRIPT_KEY, USAGE_KEY, episode_case, record_start

        case = episode_case(state)
        episode = Episode(case)
        view = public_view(case)
        received: list[str] = []
        record_start(state)
        agent = make_agent(
            system_prompt=system_prompt(view),
            bridged_tools=[BridgedToolsSpec(name=TOOL_SERVER, tools=episode_tools(episode, received))],
            version=version,
        )
        result = await agent(AgentState(messages=[ChatMessageUser(content=user_prompt(view))]))
        episode.stop()
        state.messages = [*state.messages[:1], *result.messages]
        state.store.set(TRANSCRIPT_KEY, transcript(result.messages, [t["name"] for t in view.tools]))
        names = {t["name"] for t in view.tools}
        answered = len(received) + refused_as_invalid(names)
        lost = max(0, model_calls(result.messages, names) - answered)
        reason = missing_reason(EpisodeEnd(finished=episode.done, lost_calls=lost, calls=len(received)))
        if reason is not None:
            raise HarnessFault(f"{reason} ({harness})")
        state.store.set(TRAJECTORY_KEY, episode.trajectory().model_dump(mode="json"))
        state.store.set(USAGE_KEY, _usage())
        state.completed = True
        return state

    return solve


def transcript(messages: list[Any], names: list[str]) -> list[dict[str, Any]]:
    """The model's replies as the CLI's conversation holds them (usage is per sample, not per reply)."""
    return [
        model_turn(
            message.text, [(c.function, json.dumps(c.arguments)) for c in message.tool_calls or []], {}, None, names
        ).model_dump(exclude_defaults=True)
        for message in messages
        if isinstance(message, ChatMessageAssistant)
    ]


def _usage() -> dict[str, int]:
    """Tokens the bridged model used in this sample (Inspect's own per-sample accounting)."""
    from inspect_ai.model._model import sample_model_usage

    totals: dict[str, int] = {}
    for usage in sample_model_usage().values():
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            totals[key] = totals.get(key, 0) + int(getattr(usage, key) or 0)
    return totals
