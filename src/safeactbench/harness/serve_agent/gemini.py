"""The Gemini API (`POST .../models/MODEL:generateContent`, `:streamGenerateContent?alt=sse`), as
Gemini CLI speaks it.

A request holds `systemInstruction` (parts), `contents` (each `role` `user` or `model`, its
`parts` text, the model's `functionCall`s and the client's `functionResponse`s) and `tools`
(`functionDeclarations`); the turn is the number of `functionResponse` parts that carry an
observation, or that answer a call of a tool the client does not offer (the agent's misnamed
call). `POST .../models/MODEL:countTokens` answers an estimate, as the API does.

The answer is a `GenerateContentResponse` with one candidate holding one `functionCall` part or one
`text` part (`finishReason: STOP`) and `usageMetadata`; streamed when the path says so (not the
body), as `streams.gemini` sends it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .. import streams
from ..tool_names import OfferedTool, offered_tool
from .episodes import EpisodeKey, PromptIndex
from .turn import Answer, Turn, call_arguments, parse_request


def _parse(body: bytes) -> dict[str, Any]:
    return parse_request(body, "contents")


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def _text(content: Any) -> str:
    return "\n".join(str(p["text"]) for p in _parts(content) if isinstance(p.get("text"), str))


def offered(request: dict[str, Any]) -> list[OfferedTool]:
    tools = request.get("tools")
    declarations = [
        declaration
        for tool in (tools if isinstance(tools, list) else [])
        if isinstance(tool, dict) and isinstance(tool.get("functionDeclarations"), list)
        for declaration in tool["functionDeclarations"]
    ]
    return [OfferedTool(d["name"]) for d in declarations if isinstance(d, dict) and isinstance(d.get("name"), str)]


def made_calls(contents: list[Any], tools: list[OfferedTool]) -> int:
    """Function responses with an observation's `status`, and answers to calls of unoffered tools
    (matched by name, the API's calls having no ids); any other response is the client's own error."""
    parts = [part.get("functionResponse") for content in contents for part in _parts(content)]
    responses = [response for response in parts if isinstance(response, dict)]
    return sum(
        1
        for response in responses
        if '"status"' in "".join(_strings(response.get("response")))
        or offered_tool(str(response.get("name")), tools) not in tools
    )


def _strings(value: Any) -> list[str]:
    """The strings in a JSON value (a CLI wraps the tool's text in an object of its own)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def count_tokens(body: bytes) -> dict[str, int]:
    """`:countTokens`: about 4 characters a token, as the answers count them."""
    return {"totalTokens": len(body) // 4}


def _usage(answer: Answer) -> dict[str, int]:
    total = answer.prompt_tokens + answer.completion_tokens
    return {"promptTokenCount": answer.prompt_tokens, "candidatesTokenCount": answer.completion_tokens,
            "totalTokenCount": total}  # fmt: skip


def response(model: str, answer: Answer) -> dict[str, Any]:
    if answer.tool is None:
        part: dict[str, Any] = {"text": answer.text}
    else:
        part = {"functionCall": {"name": answer.tool.name, "args": call_arguments(answer.arguments)}}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
    return {"candidates": [candidate], "usageMetadata": _usage(answer), "modelVersion": model,
            "responseId": f"resp_{answer.serial}"}  # fmt: skip


@dataclass(frozen=True)
class GenerateContent:
    """One of the two methods: `stream` for `:streamGenerateContent`."""

    stream: bool

    def read(self, body: bytes, episode: EpisodeKey | None, index: PromptIndex) -> Turn:
        request = _parse(body)
        contents = request["contents"]
        tools = offered(request)
        if episode is None:
            texts = [_text(request.get("systemInstruction"))]
            texts += [_text(c) for c in contents if isinstance(c, dict) and c.get("role", "user") == "user"]
            episode = (index.case_id(texts), "original", 0)
        return Turn(episode, made_calls(contents, tools), lambda tool: offered_tool(tool, tools), self.stream)

    def render(self, model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
        if self.stream:
            return streams.gemini(response(model, answer)), "text/event-stream"
        return json.dumps(response(model, answer)).encode(), "application/json"


generate = GenerateContent(stream=False)
stream_generate = GenerateContent(stream=True)
