"""Preflight: one small request before `run --model` starts, so a wrong URL, model name, key or a
server that drops tool calls fails in seconds with a message that says what to change — not after
hundreds of episodes stored as missing or, worse, scored as agents that never called a tool.

The request offers one tool, `report_status`, and asks the model to call it. It checks that the
endpoint answers, that it serves the model, and that tool calls come back as tool calls.
`safeactbench serve-agent` answers it as a model would. `--no-preflight` skips it.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

from ..runs.runconfig import public_url
from .episode_net import unreachable
from .generation import Generation
from .openai_api import ChatClient, Endpoint, EndpointError
from .runtime import readable
from .transcript import looks_like_tool_call

PROBE_TOOL = "report_status"
PROBE_MARK = "Connection check: call the tool report_status"  # how serve-agent knows the probe
PROBE_PROMPT = f'{PROBE_MARK} with status "ok". Do not answer in text.'
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"status": {"type": "string", "description": "ok"}},
    "required": ["status"],
}
PROBE_DESCRIPTION = "Report that the connection works."
NO_PROBE_PROVIDERS = {"safeactbench", "mockllm", "none"}  # offline providers: nothing to check

TEXT_CALL_HINT = (
    "the model wrote the call as text instead of a tool call: the server does not parse this model's "
    "tool calls (llama.cpp: start llama-server with --jinja; llama-cpp-python: start its server with "
    "--chat_format chatml-function-calling; vLLM: --enable-auto-tool-choice --tool-call-parser NAME; "
    "Ollama: a model whose template supports tools); a small model may write calls as text whatever "
    "the server does (the report counts such replies)"
)
NO_CALL_HINT = (
    "the model answered without calling the offered tool: the server may drop tools unless "
    "tool_choice is set, or the model does not call tools; try --tool-choice auto or required "
    "(servers accept different ones: the preflight says which when one fails), or pass "
    "--no-preflight to run anyway"
)


class PreflightError(RuntimeError):
    """The endpoint cannot run episodes as configured; the message says what to change."""


def check_reply(text: str, called: list[str]) -> None:
    """Raise PreflightError unless the reply called the probe tool."""
    if PROBE_TOOL in called:
        return
    if called:
        raise PreflightError(f"the model called {called}, a tool it was not offered, instead of {PROBE_TOOL}")
    snippet = json.dumps(text[:200], ensure_ascii=False)
    hint = TEXT_CALL_HINT if looks_like_tool_call(text, [PROBE_TOOL]) else NO_CALL_HINT
    raise PreflightError(f"{hint} (its reply: {snippet})")


# -------------------------------------------------------------------------------- lean harness


def preflight_lean(endpoint: Endpoint) -> None:
    """One chat completion against `endpoint`, retried as the run's calls are (`max_retries`: a
    server that rate-limits the first requests must not abort a run that would succeed); a host
    where nothing listens fails at once. PreflightError if it fails."""
    _reachable(endpoint.base_url)
    asyncio.run(_lean(endpoint))


def _reachable(base_url: str) -> None:
    problem = unreachable(base_url)
    if problem:
        raise PreflightError(
            f"server_unreachable: {public_url(base_url)}: {problem}; start the model server or fix the URL"
        )


PROBE_TOOLS = json.dumps(
    [
        {
            "type": "function",
            "function": {"name": PROBE_TOOL, "description": PROBE_DESCRIPTION, "parameters": PROBE_SCHEMA},
        }
    ]
)
TOOL_CHOICES = ("auto", "required", "none")


def _other_choices(asked: str) -> list[str | None]:
    """The tool choices to try when the server fails `asked` (None: send none at all)."""
    return [choice for choice in (*TOOL_CHOICES, None) if choice != asked]


def _choice_option(choice: str | None) -> str:
    return "no --tool-choice" if choice is None else f"--tool-choice {choice}"


async def _lean(endpoint: Endpoint) -> None:
    async with ChatClient(endpoint, connections=1) as client:
        try:
            reply = await client.complete([{"role": "user", "content": PROBE_PROMPT}], PROBE_TOOLS, "preflight")
        except EndpointError as exc:
            served = await _served_models(client)
            listing = f"; the endpoint serves: {', '.join(served)}" if served else ""
            if served and endpoint.model not in served:
                listing = f"; model {endpoint.model!r} is not among those it serves: {', '.join(served)}"
            asked = endpoint.params.get("tool_choice")
            accepted = None if asked is None or listing else await _accepted_tool_choice(endpoint, str(asked))
            if accepted is not None:
                raise PreflightError(
                    f"the endpoint failed the test request with --tool-choice {asked} ({exc}) and succeeds with "
                    f"{accepted}: pass that instead"
                ) from None
            raise PreflightError(f"the endpoint failed the test request: {exc}{listing}") from None
    check_reply(reply.text, [call.name for call in reply.tool_calls])


async def _accepted_tool_choice(endpoint: Endpoint, asked: str) -> str | None:
    """The first other tool choice (or none sent at all) the endpoint answers the probe with, one
    attempt each, as the option that sets it; None when it answers none of them."""
    for choice in _other_choices(asked):
        params = {k: v for k, v in endpoint.params.items() if k != "tool_choice"}
        if choice is not None:
            params["tool_choice"] = choice
        async with ChatClient(replace(endpoint, params=params, max_retries=0), connections=1) as client:
            try:
                await client.complete([{"role": "user", "content": PROBE_PROMPT}], PROBE_TOOLS, "preflight")
            except EndpointError:
                continue
        return _choice_option(choice)
    return None


async def _served_models(client: ChatClient) -> list[str]:
    """The model ids `GET {base_url}/models` lists, or [] when it lists none."""
    data = await client.get_json("models")
    items = data.get("data") if isinstance(data, dict) else None
    return [str(m["id"]) for m in items or [] if isinstance(m, dict) and "id" in m][:20]


# ----------------------------------------------------------------------------- Inspect harness


def preflight_inspect(
    model: str,
    model_args: dict[str, Any],
    generation: Generation,
    call_timeout: float | None,
    call_retries: int,
) -> None:
    """One `generate` through Inspect's provider for `model`, retried as the run's calls are
    (`call_retries`); PreflightError if it fails."""
    if model.partition("/")[0] in NO_PROBE_PROVIDERS:
        return
    if model_args.get("base_url"):
        _reachable(str(model_args["base_url"]))
    try:
        text, called = asyncio.run(_inspect(model, model_args, generation, call_timeout, call_retries))
    except PreflightError:
        raise
    except Exception as exc:  # whatever the provider raises: its message is what the user needs
        problem = readable(f"{type(exc).__name__}: {exc}")
        asked = generation.tool_choice
        for choice in () if asked is None else _other_choices(asked):
            other = generation.model_copy(update={"tool_choice": choice})
            try:
                asyncio.run(_inspect(model, model_args, other, call_timeout, 0))
            except Exception:
                continue
            raise PreflightError(
                f"the test request failed with --tool-choice {asked} ({problem}) and succeeds with "
                f"{_choice_option(choice)}: pass that instead"
            ) from None
        raise PreflightError(_inspect_hint(model, model_args, problem)) from None
    check_reply(text, called)


async def _inspect(
    model: str, model_args: dict[str, Any], generation: Generation, call_timeout: float | None, retries: int
) -> tuple[str, list[str]]:
    from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model
    from inspect_ai.tool import ToolInfo, ToolParams

    args = dict(model_args)
    base_url = args.pop("base_url", None)
    timeout = max(1, round(call_timeout)) if call_timeout else None
    config = GenerateConfig(max_retries=retries, attempt_timeout=timeout, **generation.inspect_config())
    api = get_model(model, base_url=None if base_url is None else str(base_url), config=config, **args)
    tool = ToolInfo(name=PROBE_TOOL, description=PROBE_DESCRIPTION, parameters=ToolParams.model_validate(PROBE_SCHEMA))
    choice: Any = {"required": "any", "auto": "auto", "none": "none"}.get(generation.tool_choice or "")
    output = await api.generate([ChatMessageUser(content=PROBE_PROMPT)], tools=[tool], tool_choice=choice)
    if output.stop_reason == "model_length":
        raise PreflightError(f"the model's context is too small for even the test request: {output.message.text}")
    return output.message.text, [call.function for call in output.message.tool_calls or []]


def _inspect_hint(model: str, model_args: dict[str, Any], problem: str) -> str:
    provider = model.partition("/")[0]
    base_url = str(model_args.get("base_url") or "")
    if provider == "openai" and base_url and "api.openai.com" not in base_url:
        return (
            f"the test request failed: {problem}\nInspect's openai/ provider speaks OpenAI's Responses API; "
            f"for an OpenAI-compatible server at {base_url} use openai-api/NAME/MODEL (key in NAME_API_KEY), "
            "vllm/MODEL, ollama/MODEL or llama-cpp-python/MODEL with --model-arg base_url=..., "
            "or --harness lean (docs/harnesses.md)"
        )
    return f"the test request failed: {problem}"
