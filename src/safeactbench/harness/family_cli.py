"""The family CLI harnesses: a model inside its own CLI agent — Codex CLI, Claude Code, Gemini CLI,
OpenCode, Qwen Code — as an Inspect solver.

    safeactbench run --model openai/gpt-5 --harness codex-cli --out runs/gpt5-codex
    inspect eval safeactbench/safeactbench -T harness=claude-code --model anthropic/claude-sonnet-4-5

Each episode is a `--harness-cmd` episode (`command`) with the CLI's tested template
(`cli_templates`): the CLI the user installed, wherever it is (`cli_install`), in a sandbox with its
own network namespace where exactly two things answer, the episode's MCP server and its model
endpoint. The model endpoint is the sample's Inspect model (`model_route`): any provider, the
scripted models included, with Inspect's usage, transcripts and limits, and no poll between the
CLI and the model. The prompt is the other harnesses': the system prompt and the task, sent once.

How the episode is stored is `outcome`'s rule, with what only this path sees: the model's own
calls. A call the model made to an episode tool, with arguments that fit the tool, that never
reached the episode (the CLI refused, renamed or lost it) is a harness fault: the sample fails
with that reason and is stored as missing, never scored as the agent's failure. A model request
the route could not answer (after Inspect's retries) stops the episode at once and fails the
sample with the model's error, unless the episode had finished.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from inspect_ai.solver import Solver, TaskState, solver

from ..core.model import Case
from ..core.public import public_view
from ..core.trajectory import Trajectory
from ..runs.runconfig import CLI_HARNESSES
from ..runs.runner import Job
from .cli_templates import EXECUTABLES, TEMPLATES
from .command import LOG, CommandHarness, Settings
from .inspect_sample import TRAJECTORY_KEY, TRANSCRIPT_KEY, USAGE_KEY, episode_case, record_start, supervised
from .outcome import missing_reason
from .runtime import MAX_CONSECUTIVE_FAILURES, RuntimeFailure, runtime_reason
from .tool_names import episode_tool
from .transcript import model_turn

# --harness name -> its `cli_templates` template
FAMILY_CLIS: dict[str, str] = {
    "codex-cli": "codex",
    "claude-code": "claude-code",
    "gemini-cli": "gemini-cli",
    "opencode": "opencode",
    "qwen-code": "qwen-code",
}
# the SDK Inspect's translation of a CLI's API needs (`pip install 'safeactbench[providers]'`)
API_SDKS = {"claude-code": "anthropic", "gemini-cli": "google.genai"}
DEFAULT_TIMEOUT_S = 900.0

assert tuple(FAMILY_CLIS) == CLI_HARNESSES


def executable(harness: str) -> str:
    """The command the family CLI `harness` runs (`codex`, `claude`, ...)."""
    return EXECUTABLES[FAMILY_CLIS[harness]][0]


def missing_sdk(harness: str) -> str | None:
    """The Python SDK the family CLI's API needs that is not installed, or None."""
    import importlib.util

    module = API_SDKS.get(harness)
    try:
        return module if module is not None and importlib.util.find_spec(module) is None else None
    except ModuleNotFoundError:  # `google` itself is missing
        return module


class HarnessFault(RuntimeFailure):
    """The CLI, not the agent, failed the episode: the sample errors and is stored as missing
    (the message is the reason, `harness_fault: ...` or `harness_crash: ...`, from the outcome rule)."""


@dataclasses.dataclass(frozen=True)
class FamilySettings:
    """What the episodes of one family-CLI task share (hashable: one `CommandHarness` per task)."""

    harness: str
    sandbox: bool = True
    run_dir: str | None = None  # the episodes' work directories go under it (else a temporary one)
    timeout: float = DEFAULT_TIMEOUT_S
    binds: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    template: str | None = None  # the command the episodes run (default: the CLI's tested template)


@cache
def command_harness(settings: FamilySettings) -> CommandHarness:
    run_dir = Path(settings.run_dir) if settings.run_dir else Path(tempfile.mkdtemp(prefix="sab-family-"))
    return CommandHarness(
        Settings(
            settings.template or TEMPLATES[FAMILY_CLIS[settings.harness]], run_dir, settings.harness, settings.timeout,
            sandbox=settings.sandbox, binds=settings.binds, path=settings.path, max_failures=0, pass_keys=False,
        )
    )  # fmt: skip


async def play_cli_episode(settings: FamilySettings, job: Job, model: str) -> tuple[Trajectory, list[Any]]:
    """Play `job` with the family CLI, its model the sample's Inspect model (called `model` on the
    CLI's command line): the trajectory and the conversation the CLI held. Raises HarnessFault (or
    the model's own error) when the episode is missing under the outcome rule."""
    import anyio

    from .model_route import ModelRoute

    runner, token = command_harness(settings), secrets.token_hex(8)

    def stop(exc: BaseException) -> None:  # the model failed after Inspect's retries: no use waiting for the CLI's
        runner.stop(token, runtime_reason(f"{type(exc).__name__}: {exc}", "--call-timeout, --call-retries"))

    async with ModelRoute(on_failure=stop) as route:
        try:
            run = await anyio.to_thread.run_sync(
                runner.run_episode, job, token, route.base_url, model, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            runner.kill(token)  # the sample was cancelled (a time limit, Ctrl-C): its CLI goes with it
            raise
    messages = list(route.state.messages)
    if route.failure is not None and not run.end.finished:
        raise route.failure
    end = dataclasses.replace(run.end, lost_calls=lost_calls(messages, job.case, run.trajectory))
    reason = missing_reason(end)
    if reason is not None:
        raise HarnessFault(f"{reason} ({settings.harness}); see {run.root / LOG}")
    return run.trajectory, messages


def lost_calls(messages: list[Any], case: Case, trajectory: Trajectory) -> int:
    """Calls the model made to the episode's tools, with arguments that fit, beyond those the episode
    received: the CLI dropped them. A call whose arguments do not fit is the agent's own mistake,
    whoever answered it."""
    from inspect_ai.model import ChatMessageAssistant

    fitting = 0
    schemas = {tool["name"]: tool["parameters"] for tool in public_view(case).tools}
    for message in messages:
        if isinstance(message, ChatMessageAssistant):
            for call in message.tool_calls or []:
                tool = episode_tool(call.function, schemas)
                fitting += tool is not None and _fits(call.arguments, schemas[tool])
    return max(0, fitting - len(trajectory.steps))


def _fits(arguments: Any, schema: dict[str, Any]) -> bool:
    import jsonschema

    return isinstance(arguments, dict) and jsonschema.Draft202012Validator(schema).is_valid(arguments)


@solver
def cli_episode(settings: FamilySettings, max_failures: int = MAX_CONSECUTIVE_FAILURES) -> Solver:
    """Play the sample's episode with the family CLI `settings.harness`, under the run's health
    (`inspect_sample.supervised`: runtime failures are missing, too many in a row stop the run)."""

    async def play(state: TaskState) -> None:
        from inspect_ai.model import get_model

        case = episode_case(state)
        record_start(state)
        job = Job(case, str(state.metadata.get("condition", "original")), int(state.metadata.get("repetition", 0)))
        trajectory, messages = await play_cli_episode(settings, job, get_model().api.model_name)
        state.messages = [*state.messages[:1], *messages]
        state.store.set(TRANSCRIPT_KEY, transcript(messages, [t["name"] for t in public_view(case).tools]))
        state.store.set(TRAJECTORY_KEY, trajectory.model_dump(mode="json"))
        state.store.set(USAGE_KEY, _usage())
        state.completed = True

    return supervised(play, max_failures)


def transcript(messages: list[Any], names: list[str]) -> list[dict[str, Any]]:
    """The model's replies as the CLI's conversation holds them (usage is per sample, not per reply)."""
    from inspect_ai.model import ChatMessageAssistant

    return [
        model_turn(
            message.text, [(c.function, json.dumps(c.arguments)) for c in message.tool_calls or []], {}, None, names
        ).model_dump(exclude_defaults=True)
        for message in messages
        if isinstance(message, ChatMessageAssistant)
    ]


def _usage() -> dict[str, int]:
    """Tokens the sample's model used (Inspect's own per-sample accounting)."""
    from inspect_ai.model._model import sample_model_usage

    totals: dict[str, int] = {}
    for usage in sample_model_usage().values():
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            totals[key] = totals.get(key, 0) + int(getattr(usage, key) or 0)
    return totals
