"""`safeactbench serve-agent AGENT`: a scripted agent behind the model APIs CLI agents speak.

An offline stand-in for a model endpoint. Point any harness or CLI agent at
`http://127.0.0.1:PORT/v1` (without `/v1` for clients that add it: Claude Code, Gemini CLI) —
`run --harness lean`, Inspect's openai provider, Codex CLI, Claude Code, Gemini CLI, OpenCode, Qwen
Code, your own — and the scripted agent plays the episode, so a harness can be checked end to end
(the reference agent must score every case) and load-tested (`--latency`, `--jitter`; the concurrency
benchmark uses it).

- APIs: OpenAI chat completions (`POST .../chat/completions`) and Responses (`POST .../responses`),
  Anthropic Messages (`POST .../v1/messages`) and Gemini (`POST .../models/M:generateContent`,
  `:streamGenerateContent`), each as plain JSON or as an SSE stream (`serve_agent.chat`,
  `.responses`, `.messages`, `.gemini`), so every family CLI can be pointed at it.
- Which episode a request belongs to (`serve_agent.episodes`): an episode base URL
  `/ep/<token>/v1` (tokens from `POST /ep`), the `X-SafeActBench-Episode: case|condition|repetition`
  header the lean harness sends, else the task prompt of an original case found in the request.
- The answer: the next call of the agent's call sequence on that case, one tool call per turn, the
  turn being the number of tool results in the request that carry an observation (a client's own
  error text - its connection to the tools failed - does not count, so the call is asked for
  again), sent under the tool name the client offered
  (`tool_names`); once the sequence is exhausted, a text reply. Every answer carries usage.
- Faults on demand: `fail` answers the first N requests of every episode with HTTP `fail_status`.
- Standard library only (asyncio streams, HTTP/1.1 keep-alive; a stream is sent whole, with its
  length), 127.0.0.1 only. It stops after `max_seconds`, after `idle_exit` seconds without a
  request, or on `POST /shutdown`; `GET /stats` and the `stats` file (written on exit) give
  requests, peak requests in flight, first request and last response times, the latencies drawn
  and CPU seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import resource
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..agents import get_agent
from ..runs.runner import gc_thresholds
from ..suite.catalog import UnknownCase
from ..suite.data import load_suite
from .http11 import MAX_BODY, Reply, as_json, error, serve_connection
from .openai_api import EPISODE_HEADER
from .preflight import PROBE_MARK, PROBE_TOOL
from .scripted_calls import Call
from .serve_agent import COUNT_TOKENS, chat, gemini, messages, responses
from .serve_agent.chat import made_calls
from .serve_agent.episodes import (
    EpisodeKey,
    EpisodeTokens,
    PromptIndex,
    RequestError,
    UnknownEpisodeToken,
    episode_from_header,
    split_episode_path,
)
from .serve_agent.turn import WireAPI, answer, next_call

__all__ = ["EpisodeTokens", "ServerConfig", "ServerStats", "made_calls", "serve"]

HOST = "127.0.0.1"
PROBE_BODY = PROBE_MARK.encode()
PROBE_EPISODE = ("preflight", "original", 0)


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


APIS: dict[str, WireAPI] = {
    "/chat/completions": chat,
    "/responses": responses,
    "/messages": messages,
    ":generateContent": gemini.generate,
    ":streamGenerateContent": gemini.stream_generate,
}


class AgentServer:
    def __init__(self, config: ServerConfig, tokens: EpisodeTokens | None = None) -> None:
        get_agent(config.agent)  # an unknown agent fails here, before the port opens
        self.config = config
        self.tokens = tokens or EpisodeTokens()
        self.port = 0  # set once the port is open
        self.serial = 0  # answers computed: ids of completions, responses, items and calls
        self.stats = ServerStats()
        self.rng = random.Random(config.seed)
        self.index = PromptIndex()
        self.failures: dict[EpisodeKey, int] = {}
        self.stopped = asyncio.Event()
        self.last_activity = self.started = time.monotonic()

    def stop(self, reason: str) -> None:
        if not self.stopped.is_set():
            self.stats.stop_reason = reason
            self.stopped.set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        await serve_connection(reader, writer, self.respond, lambda: not self.stopped.is_set())

    async def respond(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Reply:
        self.last_activity = time.monotonic()
        token, route = split_episode_path(path.split("?")[0])
        if method == "POST" and route == "/shutdown" and token is None:
            self.stop("shutdown")
            return as_json({"stopping": True})
        if method == "GET" and route == "/stats" and token is None:
            return as_json(self.stats.summary())
        if method == "POST" and route == "/ep" and token is None:
            return self._register(body)
        counter = next((count for suffix, count in COUNT_TOKENS.items() if route.endswith(suffix)), None)
        if method == "POST" and counter is not None:
            return as_json(counter(body))
        api = next((api for suffix, api in APIS.items() if route.endswith(suffix)), None)
        if method != "POST" or api is None:
            self.stats.errors += 1
            return error(404, f"no route {method} {path}", "not_found")
        stats = self.stats
        stats.requests += 1
        stats.request_bytes += len(body)
        if stats.first_request is None:
            stats.first_request = time.time()
        stats.in_flight += 1
        stats.peak_in_flight = max(stats.peak_in_flight, stats.in_flight)
        try:
            return await self._complete(api, token, headers, body)
        finally:
            stats.in_flight -= 1

    def _register(self, body: bytes) -> Reply:
        """`POST /ep {"case": ID, "condition": "original", "repetition": 0}` -> a token and its base URL."""
        try:
            spec = json.loads(body or b"{}")
            case_id, condition, repetition = spec["case"], spec.get("condition", "original"), spec.get("repetition", 0)
            if not (isinstance(case_id, str) and isinstance(condition, str)):
                raise TypeError
            if type(repetition) is not int or repetition < 0:
                raise ValueError
            token = self.tokens.register(case_id, condition, repetition)
        except UnknownCase as exc:
            return error(400, str(exc.args[0]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return error(400, 'expected {"case": ID, "condition": NAME, "repetition": N}')
        return as_json({"token": token, "base_url": f"http://{HOST}:{self.port}/ep/{token}/v1"})

    async def _complete(self, api: WireAPI, token: str | None, headers: dict[str, str], body: bytes) -> Reply:
        config, stats = self.config, self.stats
        try:
            if PROBE_BODY in body:  # `run --model`'s preflight: answer it as a model would
                turn = api.read(body, PROBE_EPISODE, self.index)
                call: Call | None = (PROBE_TOOL, {"status": "ok"}) if turn.made == 0 else None
            else:
                turn = api.read(body, self._known_episode(token, headers), self.index)
                call = next_call(config.agent, turn.episode, turn.made)
            self.serial += 1
            reply = answer(turn, call, self.serial, len(body))
        except RequestError as exc:
            stats.errors += 1
            return error(exc.status, str(exc))
        delay = max(0.0, config.latency + self.rng.uniform(-config.jitter, config.jitter))
        stats.latencies.append(delay)
        await asyncio.sleep(delay)
        failed = self.failures.get(turn.episode, 0)
        if failed < config.fail:
            self.failures[turn.episode] = failed + 1
            stats.injected_failures += 1
            return error(config.fail_status, f"injected failure {failed + 1} of {config.fail}", "server_error")
        stats.completions += 1
        stats.last_response = time.time()
        data, content_type = api.render(config.agent, reply, turn)
        return 200, data, content_type

    def _known_episode(self, token: str | None, headers: dict[str, str]) -> EpisodeKey | None:
        """The episode named by the URL or the header; None: the request's prompts must tell."""
        if token is not None:
            episode = self.tokens.episode(token)
            if episode is None:
                raise UnknownEpisodeToken("unknown episode token: register episodes with POST /ep")
            return episode
        header = headers.get(EPISODE_HEADER.lower())
        return None if header is None else episode_from_header(header)

    async def watchdog(self) -> None:
        while not self.stopped.is_set():
            await asyncio.sleep(0.25)
            now = time.monotonic()
            if now - self.started > self.config.max_seconds:
                self.stop("max_seconds")
            elif self.config.idle_exit and now - self.last_activity > self.config.idle_exit:  # 0: never
                self.stop("idle")


async def serve(
    config: ServerConfig,
    port: int = 0,
    stats_path: Path | None = None,
    on_ready: Callable[[int], None] | None = None,
    tokens: EpisodeTokens | None = None,
) -> ServerStats:
    """Serve until a stop condition; `on_ready(port)` once the port is open. In-process callers may
    pass `tokens` and register episodes on it (`tokens.register(...)`, the base URL being
    `http://127.0.0.1:PORT/ep/TOKEN/v1`) instead of `POST /ep`."""
    load_suite()  # before gc_thresholds freezes what exists
    with gc_thresholds():
        return await _serve(config, port, stats_path, on_ready, tokens)


async def _serve(
    config: ServerConfig,
    port: int,
    stats_path: Path | None,
    on_ready: Callable[[int], None] | None,
    tokens: EpisodeTokens | None,
) -> ServerStats:
    state = AgentServer(config, tokens)
    server = await asyncio.start_server(state.handle, HOST, port, backlog=2048, limit=MAX_BODY)
    state.port = server.sockets[0].getsockname()[1]
    if on_ready is not None:
        on_ready(state.port)
    watchdog = asyncio.create_task(state.watchdog())
    await state.stopped.wait()
    watchdog.cancel()
    server.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(server.wait_closed(), timeout=2.0)
    if stats_path is not None:
        stats_path.write_text(json.dumps(state.stats.summary(), indent=1) + "\n", encoding="utf-8")
    return state.stats
