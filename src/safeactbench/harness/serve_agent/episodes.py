"""Which episode a request to the served agent belongs to.

In order: an episode token in the URL path (`/ep/<token>/v1/...`, registered beforehand), the
`X-SafeActBench-Episode: case|condition|repetition` header, else the request's text, searched for
the task prompt of an original case. The token is random: a base URL never carries the case id
(which names the protocol) where an agent could read it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from ...core.prompts import user_prompt
from ...core.public import public_view
from ...suite.catalog import get_case
from ...suite.data import load_suite
from ..openai_api import EPISODE_HEADER

EpisodeKey = tuple[str, str, int]  # case id, condition, repetition
EPISODE_PREFIX = "/ep/"


class RequestError(ValueError):
    """A request the agent cannot answer; the message goes back as an OpenAI-style error."""

    status = 400


class UnknownEpisodeToken(RequestError):
    """An episode base URL this server never handed out: a wrong URL (404, as for any unknown path)."""

    status = 404


def split_episode_path(path: str) -> tuple[str | None, str]:
    """`/ep/TOKEN/v1/responses` -> ("TOKEN", "/v1/responses"); any other path -> (None, path)."""
    if not path.startswith(EPISODE_PREFIX):
        return None, path
    token, _, rest = path[len(EPISODE_PREFIX) :].partition("/")
    return token, "/" + rest


class EpisodeTokens:
    """Random tokens for episodes, one registry per server (`POST /ep`, or `register` in-process)."""

    def __init__(self) -> None:
        self._episodes: dict[str, EpisodeKey] = {}
        self._tokens: dict[EpisodeKey, str] = {}

    def register(self, case_id: str, condition: str = "original", repetition: int = 0) -> str:
        """The episode's token (the same one if it is registered again); UnknownCase if it cannot be played."""
        get_case(case_id, condition)
        key = (case_id, condition, repetition)
        token = self._tokens.get(key)
        if token is None:
            token = secrets.token_urlsafe(16)
            self._tokens[key], self._episodes[token] = token, key
        return token

    def episode(self, token: str) -> EpisodeKey | None:
        return self._episodes.get(token)


def episode_from_header(header: str) -> EpisodeKey:
    case_id, condition, repetition = [*header.split("|"), "", ""][:3]
    if not case_id or not repetition.isdigit():
        raise RequestError(f"{EPISODE_HEADER}: expected 'case|condition|repetition', got {header!r}")
    return case_id, condition or "original", int(repetition)


class PromptIndex:
    """The original cases by their task prompt, found anywhere in a request's text: CLI agents put
    their own system prompt first and may join ours (system and task prompt) into one message.

    Every task prompt starts with ANCHOR; its first `head` characters after an occurrence of ANCHOR
    pick the candidates, checked in full. Built on first use (only headerless clients need it)."""

    ANCHOR = "Request:\n"  # how `prompts.user_prompt` begins

    def __init__(self) -> None:
        self._by_head: dict[str, list[tuple[str, str]]] | None = None
        self._head = 64

    def _build(self) -> dict[str, list[tuple[str, str]]]:
        prompts = [(user_prompt(public_view(case)), case.id) for case in load_suite()]
        if not all(p.startswith(self.ANCHOR) for p, _ in prompts):
            raise RuntimeError(f"every task prompt must begin with {self.ANCHOR!r}")
        self._head = min([self._head, *(len(p) for p, _ in prompts)])
        by_head: dict[str, list[tuple[str, str]]] = {}
        for prompt, case_id in prompts:
            by_head.setdefault(prompt[: self._head], []).append((prompt, case_id))
        return by_head

    def case_id(self, texts: Iterable[str]) -> str:
        """The original case whose task prompt occurs in one of `texts` (the longest, if several do)."""
        if self._by_head is None:
            self._by_head = self._build()
        found, length = None, 0
        for text in texts:
            at = text.find(self.ANCHOR)
            while at >= 0:
                for prompt, case_id in self._by_head.get(text[at : at + self._head], ()):
                    if len(prompt) > length and text.startswith(prompt, at):
                        found, length = case_id, len(prompt)
                at = text.find(self.ANCHOR, at + 1)
        if found is None:
            raise RequestError(
                f"no original case's task prompt is in this request; send the {EPISODE_HEADER} header "
                "or use an episode base URL (POST /ep)"
            )
        return found
