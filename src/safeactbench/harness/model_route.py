"""The sample's Inspect model behind the APIs CLI agents speak: the model endpoint of a family-CLI
episode (`--harness codex-cli`, `claude-code`, `gemini-cli`, `opencode`, `qwen-code`).

Each request is answered by Inspect's own translation of its API into the Inspect model (the
functions Inspect's agent bridge calls: OpenAI chat completions and Responses, Anthropic Messages,
Gemini), so any provider works, the scripted models included, and usage, transcripts and limits
are Inspect's. A request that asked for a stream gets the complete answer as its events
(`streams`).

The route is an HTTP server in the sample's own event loop (its requests run in the sample's
context), on the host's loopback under a per-episode secret path; a sandboxed CLI reaches it only
through its own network namespace (`episode_net`, relayed by `gateway`). Nothing polls: a request
is answered as soon as the model is.

A request the model could not answer (a provider error after Inspect's retries, a limit, a runtime
failure) is answered 500 and kept as `failure`, and `on_failure` is told at once: the episode ends
with it (missing), instead of after the CLI's own retries.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable
from typing import Any

from . import streams
from .http11 import Reply, error, serve_connection
from .serve_agent import COUNT_TOKENS

HOST = "127.0.0.1"


class ModelRoute:
    """`async with ModelRoute() as route:` serves the sample's model at `route.base_url` (ends in /v1;
    `route.api_root` for clients that add it). `route.state` is the conversation the CLI sent."""

    def __init__(self, on_failure: Callable[[BaseException], None] | None = None) -> None:
        from inspect_ai.agent import AgentState
        from inspect_ai.agent._bridge.types import AgentBridge  # the translation's state, as Inspect keeps it

        self._bridge = AgentBridge(AgentState(messages=[]))
        self.secret = secrets.token_urlsafe(18)
        self.port = 0
        self.failure: BaseException | None = None
        self._on_failure = on_failure
        self._server: asyncio.Server | None = None

    @property
    def state(self) -> Any:
        """The conversation as the CLI last sent it, with the model's last answer (an AgentState)."""
        return self._bridge.state

    @property
    def api_root(self) -> str:
        return f"http://{HOST}:{self.port}/{self.secret}"

    @property
    def base_url(self) -> str:
        return f"{self.api_root}/v1"

    async def __aenter__(self) -> ModelRoute:
        self._server = await asyncio.start_server(self._connection, HOST, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_connection(reader, writer, self.respond, lambda: True)

    async def respond(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Reply:
        route, _, _ = path.partition("?")
        prefix = f"/{self.secret}/"
        if method != "POST" or not route.startswith(prefix):
            return error(404, f"no route {method} {route}", "not_found")
        try:
            request = json.loads(body)
        except ValueError as exc:
            return error(400, f"the body is not JSON: {exc}")
        if not isinstance(request, dict):
            return error(400, "the body must be a JSON object")
        try:
            return await self._answer(route, request, body)
        except Exception as exc:  # the model could not answer: the CLI is told, the episode will end with it
            if self.failure is None:
                self.failure = exc
                if self._on_failure is not None:
                    self._on_failure(exc)
            return error(500, f"{type(exc).__name__}: {exc}", "server_error")

    async def _answer(self, route: str, request: dict[str, Any], body: bytes) -> Reply:
        from inspect_ai.agent._bridge.anthropic_api import inspect_anthropic_api_request
        from inspect_ai.agent._bridge.completions import inspect_completions_api_request
        from inspect_ai.agent._bridge.google_api import inspect_google_api_request
        from inspect_ai.agent._bridge.responses import inspect_responses_api_request

        bridge, stream = self._bridge, request.get("stream") is True
        if route.endswith("/chat/completions"):
            request = _with_tool_defaults(request)
            completion = (await inspect_completions_api_request(request, None, bridge)).model_dump(mode="json")
            options = request.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            return _reply(completion, streams.chat(completion, usage) if stream else None)
        if route.endswith("/responses"):
            response = await inspect_responses_api_request(request, None, None, None, bridge)
            answer = response.model_dump(mode="json")
            return _reply(answer, streams.responses(answer) if stream else None)
        counter = next((count for suffix, count in COUNT_TOKENS.items() if route.endswith(suffix)), None)
        if counter is not None:
            return _reply(counter(body), None)
        if route.endswith("/messages"):
            message = (await inspect_anthropic_api_request(request, None, None, None, bridge)).model_dump(mode="json")
            return _reply(message, streams.messages(message) if stream else None)
        method = route.rsplit("/", 1)[-1]
        if method.endswith((":generateContent", ":streamGenerateContent")):
            model, _, verb = method.partition(":")
            answer = await inspect_google_api_request(request, None, None, bridge, requested_model=model)
            return _reply(answer, streams.gemini(answer) if verb == "streamGenerateContent" else None)
        return error(404, f"no model API at {route}", "not_found")


def _with_tool_defaults(request: dict[str, Any]) -> dict[str, Any]:
    """Chat tools as Inspect's translation needs them: the API lets a function omit its
    `description` and `parameters` (Qwen Code does), the translation reads both."""
    tools = request.get("tools")
    if not isinstance(tools, list):
        return request
    filled = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            function = {"description": "", "parameters": {"type": "object", "properties": {}}, **function}
            tool = {**tool, "function": function}
        filled.append(tool)
    return {**request, "tools": filled}


def _reply(answer: dict[str, Any], stream: bytes | None) -> Reply:
    if stream is not None:
        return 200, stream, "text/event-stream"
    return 200, json.dumps(answer).encode(), "application/json"
