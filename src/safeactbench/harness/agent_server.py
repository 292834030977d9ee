"""`safeactbench serve-agent AGENT`: a scripted agent behind an OpenAI-compatible chat-completions API.

An offline stand-in for a model endpoint. Point any OpenAI-compatible harness at
`http://127.0.0.1:PORT/v1` — `run --harness native`, Inspect's openai provider, your own — and the
scripted agent plays the episode, so a harness can be checked end to end (the reference agent must
score every case) and load-tested (`--latency`, `--jitter`; the concurrency benchmark uses it).

- Which episode a request belongs to: the `X-SafeActBench-Episode: case|condition|repetition` header
  the native harness sends; without it, the request's system and user prompts, looked up among the
  original cases (an intervention variant can share its prompts with the original: send the header).
- The answer: the next call of the agent's call sequence on that case (`scripted_calls`), one tool
  call per turn, the turn being the number of tool results (`"role": "tool"` messages) in the
  request; once the sequence is exhausted, a text reply. Every answer carries `usage`. Requests with
  the header are not parsed at all: the turn is counted in the raw body (see `tool_results`), which
  keeps the server cheap next to the harness it measures.
- Faults on demand: `fail` answers the first N requests of every episode with HTTP `fail_status`.
- Standard library only (asyncio streams, HTTP/1.1 keep-alive), 127.0.0.1 only. It stops after
  `max_seconds`, after `idle_exit` seconds without a request, or on `POST /shutdown`; `GET /stats`
  and the `stats` file (written on exit) give requests, peak requests in flight, first request and
  last response times, the latencies drawn and CPU seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import re
import resource
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..agents import get_agent
from ..catalog import UnknownCase
from ..public import public_view
from ..runner import gc_thresholds
from ..suite.data import load_suite
from .openai_api import EPISODE_HEADER
from .prompts import system_prompt, user_prompt
from .scripted_calls import DONE_TEXT, scripted_calls

HOST = "127.0.0.1"
MAX_BODY = 16 * 1024 * 1024
MAX_HEADER_LINES = 100
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}


@dataclass
class ServerConfig:
    agent: str
    latency: float = 0.0
    jitter: float = 0.0
    seed: int = 1
    fail: int = 0  # fail the first N requests of every episode
    fail_status: int = 500
    max_seconds: float = 3600.0
    idle_exit: float = 600.0


@dataclass
class ServerStats:
    requests: int = 0
    completions: int = 0
    errors: int = 0
    injected_failures: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    request_bytes: int = 0
    first_request: float | None = None  # time.time() of the first completion request
    last_response: float | None = None  # time.time() of the last completion answered
    latencies: list[float] = field(default_factory=list)
    stop_reason: str = ""

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        latencies = out.pop("latencies")
        out["mean_latency_s"] = sum(latencies) / len(latencies) if latencies else None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        out["cpu_s"] = usage.ru_utime + usage.ru_stime
        return out


class RequestError(ValueError):
    """A request the agent cannot answer; the message goes back as an OpenAI-style error."""


def _prompt_key(system: str, user: str) -> str:
    return hashlib.sha256(f"{system}\x00{user}".encode()).hexdigest()


class PromptIndex:
    """The original cases by their system and user prompts (built on first use: headerless clients)."""

    def __init__(self) -> None:
        self._cases: dict[str, str] | None = None

    def case_id(self, messages: list[Any]) -> str:
        if self._cases is None:
            self._cases = {}
            for case in load_suite():
                view = public_view(case)
                self._cases[_prompt_key(system_prompt(view), user_prompt(view))] = case.id
        texts = {"system": "", "user": ""}
        for message in messages:
            role = message.get("role") if isinstance(message, dict) else None
            role = "system" if role == "developer" else role
            if role in texts and not texts[role]:
                texts[role] = _text(message.get("content"))
        found = self._cases.get(_prompt_key(texts["system"], texts["user"]))
        if found is None:
            raise RequestError(f"no original case has these prompts; send the {EPISODE_HEADER} header")
        return found


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def episode_of(header: str | None, messages: list[Any], index: PromptIndex) -> tuple[str, str, int]:
    if header is None:
        return index.case_id(messages), "original", 0
    case_id, condition, repetition = [*header.split("|"), "", ""][:3]
    if not case_id or not repetition.isdigit():
        raise RequestError(f"{EPISODE_HEADER}: expected 'case|condition|repetition', got {header!r}")
    return case_id, condition or "original", int(repetition)


TOOL_RESULT = re.compile(rb'"role"\s*:\s*"tool"')
STREAM = re.compile(rb'"stream"\s*:\s*true')


def tool_results(body: bytes) -> int:
    """The tool messages in a request body, counted without parsing it. A raw `"role": "tool"`
    member can only be a message's role: inside JSON strings every quote is escaped, so no prompt,
    argument, observation or schema text can match, and JSON Schemas never map a key to a string."""
    return len(TOOL_RESULT.findall(body))


def next_turn(agent: str, episode: tuple[str, str, int], made: int) -> tuple[str, Any] | None:
    """The agent's next call after `made` calls, or None when it has nothing more to do."""
    try:
        calls = scripted_calls(agent, *episode)
    except UnknownCase as exc:
        raise RequestError(str(exc.args[0])) from None
    return calls[made] if made < len(calls) else None


def completion(model: str, call: tuple[str, Any] | None, serial: int, prompt_chars: int) -> dict[str, Any]:
    if call is None:
        message: dict[str, Any] = {"role": "assistant", "content": DONE_TEXT}
        finish = "stop"
    else:
        tool, arguments = call
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"call_{serial}", "type": "function", "function": {"name": tool, "arguments": text}}],
        }
        finish = "tool_calls"
    output_tokens = 12 if call is None else 8 + len(json.dumps(call[1])) // 4
    prompt_tokens = prompt_chars // 4
    return {
        "id": f"chatcmpl-{serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": prompt_tokens + output_tokens,
        },
    }


def _error(status: int, message: str, kind: str = "invalid_request_error") -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": kind}}


class AgentServer:
    def __init__(self, config: ServerConfig) -> None:
        get_agent(config.agent)  # an unknown agent fails here, before the port opens
        self.config = config
        self.stats = ServerStats()
        self.rng = random.Random(config.seed)
        self.index = PromptIndex()
        self.failures: dict[tuple[str, str, int], int] = {}
        self.stopped = asyncio.Event()
        self.last_activity = self.started = time.monotonic()

    def stop(self, reason: str) -> None:
        if not self.stopped.is_set():
            self.stats.stop_reason = reason
            self.stopped.set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        try:
            while not self.stopped.is_set():
                request = await _read_request(reader)
                if request is None:
                    break
                status, payload = await self.respond(*request)
                data = json.dumps(payload).encode()
                head = (
                    f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\nConnection: keep-alive\r\n\r\n"
                )
                writer.write(head.encode() + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def respond(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        self.last_activity = time.monotonic()
        path = path.split("?")[0]
        if method == "POST" and path == "/shutdown":
            self.stop("shutdown")
            return 200, {"stopping": True}
        if method == "GET" and path == "/stats":
            return 200, self.stats.summary()
        if not (method == "POST" and path.endswith("/chat/completions")):
            self.stats.errors += 1
            return _error(404, f"no route {method} {path}", "not_found")
        stats = self.stats
        stats.requests += 1
        stats.request_bytes += len(body)
        if stats.first_request is None:
            stats.first_request = time.time()
        stats.in_flight += 1
        stats.peak_in_flight = max(stats.peak_in_flight, stats.in_flight)
        try:
            return await self._complete(headers, body)
        finally:
            stats.in_flight -= 1

    async def _complete(self, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        config, stats = self.config, self.stats
        try:
            if STREAM.search(body):
                raise RequestError("streaming is not supported")
            episode = self._episode(headers.get(EPISODE_HEADER.lower()), body)
            call = next_turn(config.agent, episode, tool_results(body))
        except (ValueError, RequestError) as exc:  # JSONDecodeError is a ValueError
            stats.errors += 1
            return _error(400, str(exc))
        delay = max(0.0, config.latency + self.rng.uniform(-config.jitter, config.jitter))
        stats.latencies.append(delay)
        await asyncio.sleep(delay)
        failed = self.failures.get(episode, 0)
        if failed < config.fail:
            self.failures[episode] = failed + 1
            stats.injected_failures += 1
            return _error(config.fail_status, f"injected failure {failed + 1} of {config.fail}", "server_error")
        stats.completions += 1
        stats.last_response = time.time()
        return 200, completion(config.agent, call, stats.completions, len(body))

    def _episode(self, header: str | None, body: bytes) -> tuple[str, str, int]:
        if header is not None:
            if not body.lstrip().startswith(b"{"):
                raise RequestError("the body must be a JSON object")
            return episode_of(header, [], self.index)
        try:
            request = json.loads(body)
        except ValueError as exc:
            raise RequestError(f"the body is not JSON: {exc}") from None
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            raise RequestError("the body must be a JSON object with a 'messages' list")
        return episode_of(None, request["messages"], self.index)

    async def watchdog(self) -> None:
        while not self.stopped.is_set():
            await asyncio.sleep(0.25)
            now = time.monotonic()
            if now - self.started > self.config.max_seconds:
                self.stop("max_seconds")
            elif now - self.last_activity > self.config.idle_exit:
                self.stop("idle")


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) < 2:
        raise ValueError("bad request line")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADER_LINES):
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    if length > MAX_BODY:
        raise ValueError("body too large")
    body = await reader.readexactly(length) if length else b""
    return parts[0].upper(), parts[1], headers, body


async def serve(
    config: ServerConfig,
    port: int = 0,
    stats_path: Path | None = None,
    on_ready: Callable[[int], None] | None = None,
) -> ServerStats:
    """Serve until a stop condition; `on_ready(port)` once the port is open."""
    load_suite()  # before gc_thresholds freezes what exists
    with gc_thresholds():
        return await _serve(config, port, stats_path, on_ready)


async def _serve(
    config: ServerConfig, port: int, stats_path: Path | None, on_ready: Callable[[int], None] | None
) -> ServerStats:
    state = AgentServer(config)
    server = await asyncio.start_server(state.handle, HOST, port, backlog=2048, limit=MAX_BODY)
    if on_ready is not None:
        on_ready(server.sockets[0].getsockname()[1])
    watchdog = asyncio.create_task(state.watchdog())
    await state.stopped.wait()
    watchdog.cancel()
    server.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(server.wait_closed(), timeout=2.0)
    if stats_path is not None:
        stats_path.write_text(json.dumps(state.stats.summary(), indent=1) + "\n", encoding="utf-8")
    return state.stats
