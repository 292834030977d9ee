"""The Anthropic Messages API (`POST .../v1/messages`), as Claude Code speaks it.

A request holds `system` (text or text blocks), `messages` (each `content` a string or blocks:
`text`, the model's `tool_use`, the client's `tool_result`) and `tools` (`name`, `input_schema`);
the turn is the number of `tool_result` blocks that carry an observation, or that answer a call of
a tool the client does not offer (the agent's misnamed call). `POST .../messages/count_tokens`
answers an estimate, as the API does.

The answer is a `message` holding one `tool_use` block (`stop_reason: tool_use`) or one `text`
block (`end_turn`), or, with `"stream": true`, Anthropic's event sequence: `message_start`,
`content_block_start`, `content_block_delta`s (`input_json_delta` or `text_delta`),
`content_block_stop`, `message_delta` (the stop reason and output tokens), `message_stop`.
"""

from __future__ import annotations

import json
from typing import Any

from ..tool_names import OfferedTool, offered_tool
from .episodes import EpisodeKey, PromptIndex, RequestError
from .turn import Answer, Turn, pieces, sse


def _parse(body: bytes) -> dict[str, Any]:
    try:
        request = json.loads(body)
    except ValueError as exc:
        raise RequestError(f"the body is not JSON: {exc}") from None
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        raise RequestError("the body must be a JSON object with a 'messages' list")
    return request


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


def _input(arguments: str) -> Any:
    """The call's `input` object (arguments that are not a JSON object are sent as they are)."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def block(answer: Answer, done: bool = True) -> dict[str, Any]:
    """The answer's content block: complete, or as `content_block_start` opens it (`done` False)."""
    if answer.tool is None:
        return {"type": "text", "text": answer.text if done else ""}
    return {
        "type": "tool_use",
        "id": f"toolu_{answer.serial}",
        "name": answer.tool.name,
        "input": _input(answer.arguments) if done else {},
    }


def _stop_reason(answer: Answer) -> str:
    return "end_turn" if answer.tool is None else "tool_use"


def message(model: str, answer: Answer, content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
    return {
        "id": f"msg_{answer.serial}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": answer.prompt_tokens, "output_tokens": answer.completion_tokens if stop else 1},
    }


def render(model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
    """The response body and its content type."""
    if not turn.stream:
        return json.dumps(message(model, answer, [block(answer)], _stop_reason(answer))).encode(), "application/json"
    events: list[tuple[str, dict[str, Any]]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, **data}))

    emit("message_start", message=message(model, answer, [], None))
    emit("content_block_start", index=0, content_block=block(answer, done=False))
    if answer.tool is None:
        for piece in pieces(answer.text):
            emit("content_block_delta", index=0, delta={"type": "text_delta", "text": piece})
    else:
        for piece in pieces(answer.arguments):
            emit("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": piece})
    emit("content_block_stop", index=0)
    delta = {"stop_reason": _stop_reason(answer), "stop_sequence": None}
    emit("message_delta", delta=delta, usage={"output_tokens": answer.completion_tokens})
    emit("message_stop")
    return sse(events), "text/event-stream"
