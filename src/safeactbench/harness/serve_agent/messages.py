"""The Anthropic Messages API (`POST .../v1/messages`), as Claude Code speaks it.

A request holds `system` (text or text blocks), `messages` (each `content` a string or blocks:
`text`, the model's `tool_use`, the client's `tool_result`) and `tools` (`name`, `input_schema`);
the turn is the number of `tool_result` blocks that carry an observation, or that answer a call of
a tool the client does not offer (the agent's misnamed call). `POST .../messages/count_tokens`
answers an estimate, as the API does.

The answer is a `message` holding one `tool_use` block (`stop_reason: tool_use`) or one `text`
block (`end_turn`), or, with `"stream": true`, Anthropic's event sequence for it
(`streams.messages`).
"""

from __future__ import annotations

import json
from typing import Any

from .. import streams
from ..tool_names import OfferedTool, offered_tool
from .episodes import EpisodeKey, PromptIndex
from .turn import Answer, Turn, call_arguments, parse_request


def _parse(body: bytes) -> dict[str, Any]:
    return parse_request(body, "messages")


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str:
    return "\n".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def offered(request: dict[str, Any]) -> list[OfferedTool]:
    tools = request.get("tools")
    names = [t.get("name") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    return [OfferedTool(name) for name in names if isinstance(name, str)]


def made_calls(messages: list[Any], tools: list[OfferedTool]) -> int:
    """Tool results with an observation's `status`, and answers to calls of unoffered tools; any
    other result is the client's own error (the call never reached the episode)."""
    blocks = [b for m in messages if isinstance(m, dict) for b in _blocks(m.get("content"))]
    unoffered = {
        b.get("id")
        for b in blocks
        if b.get("type") == "tool_use" and offered_tool(str(b.get("name")), tools) not in tools
    }
    return sum(
        1
        for b in blocks
        if b.get("type") == "tool_result"
        and ('"status"' in _result_text(b.get("content")) or b.get("tool_use_id") in unoffered)
    )


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else _text(content)


def read(body: bytes, episode: EpisodeKey | None, index: PromptIndex) -> Turn:
    request = _parse(body)
    messages = request["messages"]
    tools = offered(request)
    if episode is None:
        texts = [_text(request.get("system"))]
        texts += [_text(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        episode = (index.case_id(texts), "original", 0)
    stream = request.get("stream") is True
    return Turn(episode, made_calls(messages, tools), lambda tool: offered_tool(tool, tools), stream)


def count_tokens(body: bytes) -> dict[str, int]:
    """`.../messages/count_tokens`: about 4 characters a token, as the answers count them."""
    return {"input_tokens": len(body) // 4}


def block(answer: Answer) -> dict[str, Any]:
    """The answer's content block."""
    if answer.tool is None:
        return {"type": "text", "text": answer.text}
    call_id = f"toolu_{answer.serial}"
    return {"type": "tool_use", "id": call_id, "name": answer.tool.name, "input": call_arguments(answer.arguments)}


def message(model: str, answer: Answer) -> dict[str, Any]:
    return {
        "id": f"msg_{answer.serial}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block(answer)],
        "stop_reason": "end_turn" if answer.tool is None else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": answer.prompt_tokens, "output_tokens": answer.completion_tokens},
    }


def render(model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
    """The response body and its content type."""
    if turn.stream:
        return streams.messages(message(model, answer)), "text/event-stream"
    return json.dumps(message(model, answer)).encode(), "application/json"
