"""The served agent's answer to one model request, before any wire format.

A request asks for the agent's next call on an episode after `made` calls (the tool results the
request carries). The answer is that call of the agent's cached call sequence (`scripted_calls`),
under the name the client offered for the tool (`tool_names`), or the closing text once the
sequence is exhausted. Token counts are estimates (about 4 characters a token), so clients that
account for usage see plausible numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ...suite.catalog import UnknownCase
from ..scripted_calls import DONE_TEXT, Call, scripted_calls
from ..tool_names import OfferedTool
from .episodes import EpisodeKey, PromptIndex, RequestError


@dataclass(frozen=True)
class Turn:
    """What a request asks for, as read by a wire-format module."""

    episode: EpisodeKey
    made: int  # calls already answered: the tool results in the request
    route: Callable[[str], OfferedTool]  # the offered tool for one of the agent's tool names
    stream: bool = False
    include_usage: bool = False


@dataclass(frozen=True)
class Answer:
    """A tool call (`tool` and its `arguments` as JSON text) or, with `tool` None, a text reply."""

    serial: int  # unique per server: ids of responses, items and calls
    tool: OfferedTool | None
    arguments: str
    text: str
    prompt_tokens: int
    completion_tokens: int

    @property
    def usage(self) -> dict[str, int]:
        total = self.prompt_tokens + self.completion_tokens
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens, "total_tokens": total}


class WireAPI(Protocol):
    """A wire format (the `chat` and `responses` modules): a request read, an answer written."""

    def read(self, body: bytes, episode: EpisodeKey | None, index: PromptIndex) -> Turn:
        """The request's turn; `episode` when the URL or a header named it, else found from the prompts."""
        ...

    def render(self, model: str, answer: Answer, turn: Turn) -> tuple[bytes, str]:
        """The response body and its content type."""
        ...


def parse_request(body: bytes, field: str, kinds: tuple[type, ...] = (list,), what: str = "list") -> dict[str, Any]:
    """The request body as a JSON object whose `field` is one of `kinds`, else a RequestError saying so."""
    try:
        request = json.loads(body)
    except ValueError as exc:
        raise RequestError(f"the body is not JSON: {exc}") from None
    if not isinstance(request, dict) or not isinstance(request.get(field), kinds):
        article = "an" if field[0] in "aeiou" else "a"
        raise RequestError(f"the body must be a JSON object with {article} '{field}' {what}")
    return request


def call_arguments(arguments: str) -> Any:
    """A call's arguments as the API's object (arguments that are not JSON are sent as they are)."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def next_call(agent: str, episode: EpisodeKey, made: int) -> Call | None:
    """The agent's next call after `made` calls, or None when it has nothing more to do."""
    try:
        calls = scripted_calls(agent, *episode)
    except UnknownCase as exc:
        raise RequestError(str(exc.args[0])) from None
    return calls[made] if made < len(calls) else None


def answer(turn: Turn, call: Call | None, serial: int, prompt_chars: int) -> Answer:
    prompt_tokens = prompt_chars // 4
    if call is None:
        return Answer(serial, None, "", DONE_TEXT, prompt_tokens, 12)
    tool, arguments = call
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return Answer(serial, turn.route(tool), text, "", prompt_tokens, 8 + len(json.dumps(arguments)) // 4)
