"""The OpenAI Responses API (`POST .../responses`), as Codex CLI speaks it.

A request's `input` is a string or a list of items: messages (`role`, `content` as text or parts),
the model's `function_call`s and the client's `function_call_output`s; the turn is the number of
`function_call_output` items. Clients send the whole conversation (`store: false`, as Codex does):
`previous_response_id` is refused, since the turn could not be counted. `tools` holds `function`
entries and `namespace` entries grouping tools (Codex puts an MCP server's tools in the namespace
`mcp__<server>`); a call to a namespace member is answered as the API does, with the member's
`name` and the `namespace` field (`ResponseFunctionToolCall.namespace` in the OpenAI SDK; Codex
rebuilds its tool name from both).

The answer is a `response` object whose `output` holds one `message` or `function_call` item, or,
with `"stream": true`, OpenAI's event sequence for it (`streams.responses`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from .. import streams
from ..tool_names import OfferedTool, offered_tool
from .episodes import EpisodeKey, PromptIndex, RequestError
from .turn import Answer, Turn, parse_request

PROMPT_ROLES = ("system", "developer", "user")


def read(body: bytes, episode: EpisodeKey | None, index: PromptIndex) -> Turn:
    request = parse_request(body, "input", (str, list), "string or list")
    if request.get("previous_response_id"):
        raise RequestError("previous_response_id is not supported: send the whole conversation (store: false)")
    items = request["input"] if isinstance(request["input"], list) else [{"role": "user", "content": request["input"]}]
    items = [item for item in items if isinstance(item, dict)]
    tools = offered(request.get("tools"))
    made = _made(items, set(tools))
    if episode is None:
        texts = [_text(item.get("content")) for item in items if _is_prompt(item)]
        episode = (index.case_id([_text(request.get("instructions")), *texts]), "original", 0)
    stream = request.get("stream") is True
    return Turn(episode, made, lambda tool: offered_tool(tool, tools), stream, stream)


def _made(items: list[dict[str, Any]], tools: set[OfferedTool]) -> int:
    """Outputs carrying an observation's status (the episode answered), and the client's answers to
    calls of a tool it does not offer (the agent's misnamed call); any other output is the client's
    own error (the call never reached the episode: the agent's next call is the same again)."""
    unoffered = {
        item.get("call_id")
        for item in items
        if item.get("type") == "function_call" and offered_tool(str(item.get("name")), tools) not in tools
    }
    return sum(
        1
        for item in items
        if item.get("type") == "function_call_output"
        and ('"status"' in str(item.get("output")) or item.get("call_id") in unoffered)
    )


def _is_prompt(item: dict[str, Any]) -> bool:
    return item.get("type", "message") == "message" and item.get("role") in PROMPT_ROLES


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def offered(tools: Any) -> list[OfferedTool]:
    """Function tools, namespace members included (flattened, each with its namespace)."""
    out: list[OfferedTool] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        if tool.get("type") == "function":
            out.append(OfferedTool(tool["name"]))
        elif tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            members = [m for m in tool["tools"] if isinstance(m, dict) and isinstance(m.get("name"), str)]
            out += [OfferedTool(m["name"], tool["name"]) for m in members if m.get("type", "function") == "function"]
    return out


def render(model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
    """The response body and its content type."""
    complete = response(model, answer, [item(answer)], "completed")
    if turn.stream:
        return streams.responses(complete), "text/event-stream"
    return json.dumps(complete).encode(), "application/json"


def usage(answer: Answer) -> dict[str, Any]:
    return {
        "input_tokens": answer.prompt_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": answer.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": answer.prompt_tokens + answer.completion_tokens,
    }


def response(model: str, answer: Answer, output: list[dict[str, Any]], status: str) -> dict[str, Any]:
    return {
        "id": f"resp_{answer.serial}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "usage": usage(answer) if status == "completed" else None,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
    }


def item(answer: Answer) -> dict[str, Any]:
    """The answer's output item."""
    status = "completed"
    if answer.tool is None:
        content = [{"type": "output_text", "text": answer.text, "annotations": [], "logprobs": []}]
        return {
            "id": f"msg_{answer.serial}",
            "type": "message",
            "status": status,
            "role": "assistant",
            "content": content,
        }
    call = {
        "id": f"fc_{answer.serial}",
        "type": "function_call",
        "status": status,
        "call_id": f"call_{answer.serial}",
        "name": answer.tool.name,
        "arguments": answer.arguments,
    }
    if answer.tool.namespace is not None:
        call["namespace"] = answer.tool.namespace
    return call
