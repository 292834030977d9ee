"""Transcripts: every model reply of an episode, kept with its record so an episode can be explained
(why did the agent stop after 0 steps? what did it write instead of calling a tool?).

A reply without a tool call whose text is written like one — `<tool_call>` tags, a JSON object
naming an offered tool, `get_charge(charge_id=...)` — is flagged `text_tool_call`: a model (or a
chat template) that writes calls as text is counted and shown in the report, never silently
treated as an agent that chose to stop.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..runs.records import ModelTurn

MAX_TEXT = 4000  # characters of a reply's text that are kept

_MARKERS = re.compile(r"<tool_call>|<function[=\s>]|\[TOOL_CALLS\]|<\|tool_call|<\|python_tag\|>|\"tool_calls\"\s*:")


def looks_like_tool_call(text: str, tool_names: Iterable[str]) -> bool:
    """Whether `text` is written like a call of one of `tool_names` (or in a tool-call markup)."""
    if not text:
        return False
    if _MARKERS.search(text):
        return True
    for name in tool_names:
        quoted = re.escape(name)
        if name in text and re.search(rf'"(?:name|tool|function)"\s*:\s*"{quoted}"|\b{quoted}\s*\(', text):
            return True
    return False


def model_turn(
    text: str | None,
    tool_calls: list[tuple[str, str]],
    usage: dict[str, int],
    stop_reason: str | None,
    tool_names: Iterable[str],
) -> ModelTurn:
    """A reply as stored: `tool_calls` as (name, arguments as sent)."""
    text = text or ""
    return ModelTurn(
        text=text[:MAX_TEXT],
        tool_calls=[{"name": name, "arguments": arguments} for name, arguments in tool_calls],
        usage=usage,
        stop_reason=stop_reason,
        text_tool_call=not tool_calls and looks_like_tool_call(text, tool_names),
    )
