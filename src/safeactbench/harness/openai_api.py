"""A lean client for OpenAI-compatible chat-completions endpoints, used by the lean harness.

One aiohttp session whose connection pool is the run's concurrency. A request that fails on the way
— connection error, timeout, HTTP 408/409/429 or 5xx, a body that is not a completion — is retried
with exponential backoff (a `Retry-After` header is honoured); when the retries run out the episode
is a runtime failure (`EndpointError`). Answers every request would get — HTTP 401, 403, 404 — stop
the run at once (`EndpointRefused`): a wrong key, model name or URL is not worth hundreds of
failed episodes. Other 4xx answers (a request the endpoint will never take, e.g. a context that is
too long) fail the episode without retries.

The API key comes from the environment only (`OPENAI_API_KEY`, or the variable named by
`api_key_env`) and is never written anywhere.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from ..runs.runconfig import public_url
from .runtime import is_context_overflow, runtime_reason

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
EPISODE_HEADER = "X-SafeActBench-Episode"  # case|condition|repetition, for proxies, logs and served agents
REFUSED = {401, 403, 404}
MAX_BACKOFF = 60.0

# --model-arg keys the harness reads itself; every other key is sent in the request body
HARNESS_ARGS = {"base_url": str, "api_key_env": str, "timeout": float, "max_retries": int, "backoff": float}


class EndpointError(RuntimeError):
    """The endpoint failed this request for good: the episode is a runtime failure, not an agent's.
    The message is the missing reason, `CLASS: detail` (`runtime.runtime_reason`)."""


class EndpointRefused(EndpointError):
    """The endpoint refuses requests outright (key, model or URL), or has failed every one so far:
    the run stops."""


@dataclass(frozen=True)
class Endpoint:
    """Where and how to send chat completions. `params` go into every request body."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    params: dict[str, Any] = field(default_factory=dict)
    timeout: float = 600.0
    max_retries: int = 5
    backoff: float = 1.0
    named: str = ""  # the model as `--model` names it (`openai/gpt-4o-mini`): what run.json and records say

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    @classmethod
    def from_model(
        cls,
        model: str,
        model_args: Mapping[str, Any],
        env: Mapping[str, str] = os.environ,
        generation: Mapping[str, Any] | None = None,
        call_timeout: float | None = None,
    ) -> Endpoint:
        """`openai/gpt-4o-mini` sends `gpt-4o-mini`; any other name is sent as given (e.g. a vLLM model).
        `generation` (the run's generation settings) goes into every request body; `call_timeout`
        (seconds) overrides `--model-arg timeout`."""
        provider, _, name = model.partition("/")
        name = name if provider == "openai" and name else model
        if "api_key" in model_args:
            raise ValueError("--model-arg api_key: pass keys through the environment (api_key_env=VARIABLE)")
        harness: dict[str, Any] = {}
        for key, kind in HARNESS_ARGS.items():
            if key in model_args:
                try:
                    harness[key] = kind(model_args[key])
                except (TypeError, ValueError):
                    raise ValueError(f"--model-arg {key}: expected {kind.__name__}, got {model_args[key]!r}") from None
        base_url = harness.pop("base_url", None) or env.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"--model-arg base_url: expected an http(s) URL, got {base_url!r}")
        key_env = harness.pop("api_key_env", API_KEY_ENV)
        api_key = env.get(key_env) or None
        if api_key is not None and urlsplit(base_url).password is not None:
            raise ValueError(
                f"--model-arg base_url carries a password (user:password@) and {key_env} is set: a request "
                "has one Authorization; drop one of them"
            )
        if api_key is None and base_url.rstrip("/") == DEFAULT_BASE_URL:
            raise ValueError(f"{key_env} is not set: the OpenAI API needs a key (or pass --model-arg base_url=...)")
        if harness.get("max_retries", 0) < 0 or harness.get("backoff", 0) < 0 or harness.get("timeout", 1) <= 0:
            raise ValueError("--model-arg: max_retries and backoff must be >= 0, timeout > 0")
        params = {k: v for k, v in model_args.items() if k not in HARNESS_ARGS} | dict(generation or {})
        if call_timeout is not None:
            harness["timeout"] = float(call_timeout)
        return cls(base_url=base_url, model=name, api_key=api_key, params=params, named=model, **harness)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # as the model wrote them: JSON text, possibly invalid


@dataclass(frozen=True)
class Reply:
    message: dict[str, Any]  # the assistant message to append to the conversation
    tool_calls: list[ToolCall]
    usage: dict[str, int]
    text: str = ""
    finish_reason: str | None = None


class MalformedReply(ValueError):
    pass


def parse_reply(body: bytes) -> Reply:
    """A chat-completions response body -> the assistant turn (tolerant of what servers differ in)."""
    try:
        data = json.loads(body)
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise MalformedReply(f"not a chat completion ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(message, dict):
        raise MalformedReply("choices[0].message is not an object")
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    calls: list[ToolCall] = []
    for number, raw in enumerate(message.get("tool_calls") or []):
        function = raw.get("function") if isinstance(raw, dict) else None
        function = function if isinstance(function, dict) else {}
        name, arguments = function.get("name"), function.get("arguments")
        calls.append(
            ToolCall(
                id=str(raw.get("id") or f"call_{number}") if isinstance(raw, dict) else f"call_{number}",
                name=name if isinstance(name, str) else json.dumps(name),
                arguments=arguments if isinstance(arguments, str) else json.dumps(arguments),
            )
        )
    # "" rather than null on a tool-call turn: some servers (llama-cpp-python) reject null content
    text = content if isinstance(content, str) else ""
    echo: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        echo["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    counts = {
        "input_tokens": usage.get("prompt_tokens"),
        "output_tokens": usage.get("completion_tokens"),
        "total_tokens": usage.get("total_tokens"),
    }
    finish = data["choices"][0].get("finish_reason") if isinstance(data["choices"][0], dict) else None
    usage_counts = {k: v for k, v in counts.items() if isinstance(v, int)}
    return Reply(echo, calls, usage_counts, text, finish if isinstance(finish, str) else None)


class ChatClient:
    """`async with ChatClient(endpoint, connections) as client: await client.complete(...)`."""

    def __init__(self, endpoint: Endpoint, connections: int) -> None:
        self.endpoint = endpoint
        self.connections = connections
        # the fixed part of every request body, serialised once: '{"model": ..., <params>'
        self._head = json.dumps({"model": endpoint.model, **endpoint.params}, separators=(",", ":"))[:-1]
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> ChatClient:
        headers = {"Content-Type": "application/json"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=self.connections),
            timeout=aiohttp.ClientTimeout(total=self.endpoint.timeout),
            headers=headers,
            trust_env=True,  # HTTP(S)_PROXY and NO_PROXY, as the OpenAI SDK honours them
        )
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()

    async def get_json(self, path: str) -> Any:
        """`GET {base_url}/{path}` as JSON, or None when it fails or is not JSON (one try, no retries)."""
        assert self._session is not None, "use ChatClient as an async context manager"
        try:
            async with self._session.get(f"{self.endpoint.base_url.rstrip('/')}/{path}") as resp:
                return await resp.json(content_type=None) if resp.status == 200 else None
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None

    def body(self, messages: list[dict[str, Any]], tools_json: str) -> bytes:
        """The request body; `tools_json` is the tool list already serialised (it never changes)."""
        dumped = json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
        return f'{self._head},"messages":{dumped},"tools":{tools_json}}}'.encode()

    async def complete(self, messages: list[dict[str, Any]], tools_json: str, episode: str) -> Reply:
        assert self._session is not None, "use ChatClient as an async context manager"
        body = self.body(messages, tools_json)
        retries = self.endpoint.max_retries
        for attempt in range(retries + 1):
            retry_after: str | None = None
            try:
                async with self._session.post(self.endpoint.url, data=body, headers={EPISODE_HEADER: episode}) as resp:
                    status, payload = resp.status, await resp.read()
                    retry_after = resp.headers.get("Retry-After")
            except TimeoutError:
                problem = f"timeout: no reply within {self.endpoint.timeout:g} s (the per-call timeout, --call-timeout)"
            except aiohttp.ClientError as exc:
                problem = f"{type(exc).__name__}: {str(exc)[:200] or 'no detail'}"
            else:
                if status == 200:
                    try:
                        return parse_reply(payload)
                    except MalformedReply as exc:
                        problem = f"malformed completion: {exc}"
                elif status in REFUSED:
                    where = public_url(self.endpoint.url)
                    raise EndpointRefused(f"HTTP {status} from {where}: {error_text(payload)}")
                elif is_context_overflow(error_text(payload)):  # deterministic, whatever the status: never retried
                    raise EndpointError(runtime_reason(f"HTTP {status}: {error_text(payload)}"))
                elif status in (408, 409, 429) or status >= 500:
                    problem = f"HTTP {status}: {error_text(payload)}"
                else:
                    raise EndpointError(runtime_reason(f"HTTP {status}: {error_text(payload)}"))
            if attempt == retries:
                raise EndpointError(runtime_reason(f"{problem} (gave up after {attempt + 1} attempts)"))
            await asyncio.sleep(backoff_delay(attempt, self.endpoint.backoff, retry_after))
        raise AssertionError("unreachable")


def backoff_delay(attempt: int, base: float, retry_after: str | None = None) -> float:
    """Seconds before retry `attempt` + 1: the server's Retry-After if it gives seconds, else
    exponential with full jitter."""
    if retry_after:
        try:
            return min(MAX_BACKOFF, max(0.0, float(retry_after)))
        except ValueError:
            pass
    return random.uniform(0, min(MAX_BACKOFF, base * 2**attempt))


def error_text(payload: bytes) -> str:
    """The error message of an error response, short."""
    try:
        data = json.loads(payload)
        message = data["error"]["message"] if isinstance(data.get("error"), dict) else data.get("error")
    except (ValueError, AttributeError, KeyError, TypeError):
        message = None
    text = str(message) if message else payload.decode("utf-8", "replace")
    return " ".join(text.split())[:300] or "(empty body)"
