"""Chat completions (`POST .../chat/completions`): read a request, write a completion or its SSE stream.

A request whose episode is known from the URL or the header is not parsed at all: the turn is
counted in the raw body (`tool_results`) and the body is parsed only when the agent's tool is not
offered under its own name, which keeps the server cheap next to the harness it measures. Other
requests are parsed to find the episode from their text.

Streams (`"stream": true`) are the completion as `chat.completion.chunk`s (`streams.chat`), with a
usage chunk when `stream_options.include_usage` asks for it.
"""

from __future__ import annotations

import json
import re
import time
from functools import lru_cache
from typing import Any

from .. import streams
from ..tool_names import OfferedTool, offered_tool
from .episodes import EpisodeKey, PromptIndex, RequestError
from .turn import Answer, Turn, parse_request

TOOL_RESULT = re.compile(rb'"role"\s*:\s*"tool"')
STREAM = re.compile(rb'"stream"\s*:\s*true')
INCLUDE_USAGE = re.compile(rb'"include_usage"\s*:\s*true')
PROMPT_ROLES = ("system", "developer", "user")


def made_calls(messages: list[Any], tools: list[OfferedTool] | None = None) -> int:
    """The calls the agent has made, as the turn counts them: its tool results that carry an
    observation's `status` (the episode answered), and the client's answers to calls of a tool it
    does not offer (the agent's own misnamed call: the client answered it, and it will never
    reach the episode). Any other tool message without a status is the client's own error (its
    connection to the tools failed, the call never reached the episode), so the agent's next call
    is the same one again."""
    unoffered = {
        call.get("id")
        for m in messages
        if tools is not None and isinstance(m, dict) and m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
        if isinstance(call, dict) and offered_tool(str((call.get("function") or {}).get("name")), tools) not in tools
    }
    return sum(
        1
        for m in messages
        if isinstance(m, dict)
        and m.get("role") == "tool"
        and ('"status"' in _text(m.get("content")) or m.get("tool_call_id") in unoffered)
    )


@lru_cache(maxsize=1024)
def _named(tool: str) -> re.Pattern[bytes]:
    return re.compile(rb'"name"\s*:\s*"' + re.escape(tool.encode()) + rb'"')


def read(body: bytes, episode: EpisodeKey | None, index: PromptIndex) -> Turn:
    if episode is not None:
        if not body.lstrip().startswith(b"{"):
            raise RequestError("the body must be a JSON object")

        def route(tool: str) -> OfferedTool:  # the raw check spares parsing when the name is offered as is
            return OfferedTool(tool) if _named(tool).search(body) else offered_tool(tool, offered(_parse(body)))

        stream = bool(STREAM.search(body))
        if TOOL_RESULT.search(body):
            request = _parse(body)
            made = made_calls(request["messages"], offered(request))
        else:
            made = 0
        return Turn(episode, made, route, stream, stream and bool(INCLUDE_USAGE.search(body)))
    request = _parse(body)
    messages = request["messages"]
    texts = [_text(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") in PROMPT_ROLES]
    tools = offered(request)
    made = made_calls(messages, tools)
    stream = request.get("stream") is True
    options = request.get("stream_options")
    include_usage = stream and isinstance(options, dict) and options.get("include_usage") is True
    episode = (index.case_id(texts), "original", 0)
    return Turn(episode, made, lambda tool: offered_tool(tool, tools), stream, include_usage)


def _parse(body: bytes) -> dict[str, Any]:
    return parse_request(body, "messages")


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def offered(request: dict[str, Any]) -> list[OfferedTool]:
    tools = request.get("tools")
    functions = [t.get("function") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    return [OfferedTool(f["name"]) for f in functions if isinstance(f, dict) and isinstance(f.get("name"), str)]


def render(model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
    """The response body and its content type."""
    if turn.stream:
        return streams.chat(completion(model, answer), turn.include_usage), "text/event-stream"
    return json.dumps(completion(model, answer)).encode(), "application/json"


def _tool_call(answer: Answer, name: str, arguments: str) -> dict[str, Any]:
    return {"id": f"call_{answer.serial}", "type": "function", "function": {"name": name, "arguments": arguments}}


def completion(model: str, answer: Answer) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if answer.tool is not None:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [_tool_call(answer, answer.tool.name, answer.arguments)],
        }
    return {
        "id": f"chatcmpl-{answer.serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop" if answer.tool is None else "tool_calls"}],
        "usage": answer.usage,
    }
