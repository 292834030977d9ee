"""A model API's complete answer as its streamed form: the server-sent events a client that asked
for `"stream": true` reads, built from the JSON it would have read otherwise.

One function per API, each taking the API's own response object: `chat` (a `chat.completion`),
`responses` (a Responses API `response`), `messages` (an Anthropic `message`), `gemini` (a
`GenerateContentResponse`). Text and arguments come in several deltas of `PIECE` characters, as a
real model streams them. Used by `serve-agent` (a scripted agent's answer) and by `model_route`
(an Inspect model's answer), so both stream the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

PIECE = 24  # characters per streamed delta


def pieces(text: str) -> list[str]:
    """`text` in streamed deltas."""
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def sse(events: Iterable[tuple[str | None, Any]], done: bool = False) -> bytes:
    """Server-sent events, each `(event name or None, data)`; `done` appends `data: [DONE]`."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def chat(completion: dict[str, Any], include_usage: bool) -> bytes:
    """`chat.completion.chunk`s: the role, content deltas, each tool call (opened with its index, id
    and name, then its arguments in pieces), the finish reason, the usage chunk if asked for, [DONE]."""
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    [choice] = completion["choices"][:1] or [{"message": {}, "finish_reason": "stop"}]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        step = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return None, {**base, "choices": [step], **({"usage": None} if include_usage else {})}

    calls = message.get("tool_calls") or []
    text = message.get("content") or ""
    events = [chunk({"role": "assistant", "content": "" if text or not calls else None})]
    events += [chunk({"content": piece}) for piece in pieces(text)]
    for index, call in enumerate(calls):
        function = call.get("function") or {}
        opening = {"index": index, "id": call.get("id"), "type": "function",
                   "function": {"name": function.get("name"), "arguments": ""}}  # fmt: skip
        events.append(chunk({"tool_calls": [opening]}))
        for piece in pieces(function.get("arguments") or ""):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk({}, choice.get("finish_reason") or ("tool_calls" if calls else "stop")))
    if include_usage:
        events.append((None, {**base, "choices": [], "usage": completion.get("usage")}))
    return sse(events, done=True)


def _opened(item: dict[str, Any]) -> dict[str, Any]:
    """A Responses output item as `response.output_item.added` announces it."""
    empty: dict[str, dict[str, Any]] = {
        "message": {"content": []},
        "function_call": {"arguments": ""},
        "reasoning": {"summary": []},
    }
    return {**item, **empty.get(item.get("type", ""), {}), "status": "in_progress"}


def responses(response: dict[str, Any]) -> bytes:
    """`response.created`, `response.in_progress`, per output item `response.output_item.added`, its
    text (`content_part.added`, `output_text.delta`s, `.done`, `content_part.done`) or arguments
    (`function_call_arguments.delta`s, `.done`), `response.output_item.done`; `response.completed`."""
    events: list[tuple[str, dict[str, Any]]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    started = {**response, "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=started)
    emit("response.in_progress", response=started)
    for index, item in enumerate(response.get("output") or []):
        emit("response.output_item.added", output_index=index, item=_opened(item))
        at = {"item_id": item.get("id"), "output_index": index}
        if item.get("type") == "message":
            for part_index, part in enumerate(item.get("content") or []):
                text = part.get("text", "")
                emit("response.content_part.added", **at, content_index=part_index, part={**part, "text": ""})
                for piece in pieces(text):
                    emit("response.output_text.delta", **at, content_index=part_index, delta=piece, logprobs=[])
                emit("response.output_text.done", **at, content_index=part_index, text=text, logprobs=[])
                emit("response.content_part.done", **at, content_index=part_index, part=part)
        elif item.get("type") == "function_call":
            for piece in pieces(item.get("arguments", "")):
                emit("response.function_call_arguments.delta", **at, delta=piece)
            emit("response.function_call_arguments.done", **at, name=item.get("name"), arguments=item.get("arguments"))
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=response)
    return sse(events)


def _block_deltas(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An Anthropic content block as `content_block_start` opens it, and its deltas."""
    kind = block.get("type")
    if kind == "text":
        return {**block, "text": ""}, [{"type": "text_delta", "text": p} for p in pieces(block.get("text", ""))]
    if kind == "tool_use":
        arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
        return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": p} for p in pieces(arguments)]
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block.get("thinking", ""))]
        return {**block, "thinking": "", "signature": ""}, [
            *deltas,
            {"type": "signature_delta", "signature": block.get("signature", "")},
        ]
    return block, []  # e.g. redacted thinking: whole at its start


def messages(message: dict[str, Any]) -> bytes:
    """`message_start`, per content block `content_block_start`, its deltas, `content_block_stop`;
    `message_delta` (stop reason, output tokens), `message_stop`."""
    events: list[tuple[str, dict[str, Any]]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, **data}))

    usage = message.get("usage") or {}
    opening = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {**usage, "output_tokens": 1}}  # fmt: skip
    emit("message_start", message=opening)
    for index, block in enumerate(message.get("content") or []):
        start, deltas = _block_deltas(block)
        emit("content_block_start", index=index, content_block=start)
        for delta in deltas:
            emit("content_block_delta", index=index, delta=delta)
        emit("content_block_stop", index=index)
    stop = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    emit("message_delta", delta=stop, usage={"output_tokens": usage.get("output_tokens", 0)})
    emit("message_stop")
    return sse(events)


def gemini(response: dict[str, Any]) -> bytes:
    """`:streamGenerateContent?alt=sse`: the response as one chunk (the last one: it carries the
    finish reason and usage)."""
    return sse([(None, response)])
