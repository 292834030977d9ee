"""A local mock of the OpenAI chat-completions API, for the concurrency benchmark.

    python -m benchmarks.mock_openai --port 0 --latency 0.2 --jitter 0.02 --max-seconds 300

Standard library only (asyncio streams, HTTP/1.1 with keep-alive). It listens on 127.0.0.1 only and
answers `POST /v1/chat/completions` after a fixed latency (uniform in latency ± jitter, seeded) with
a scripted assistant turn and a `usage` block:

- `--calls 1` (default): a tool call to the terminal tool at once — `submit` with outcome DEFER, or
  `decide` with decision DEFER when `submit` is not offered (Legacy cases);
- `--calls K`: K-1 calls to the first read-only tool of the request (arguments `{}`), then the
  terminal call. The turn is the number of assistant messages already in the request.

It stops by itself: after `--max-requests` answered requests, after `--max-seconds`, after
`--idle-exit` seconds without a request, or on `POST /shutdown`. On exit it writes its statistics
(requests, peak requests in flight, first/last request times, CPU seconds) as JSON to `--stats`.
The first line it prints on stdout is `PORT <n>`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
MAX_BODY = 16 * 1024 * 1024
MAX_HEADER_LINES = 100


@dataclass
class Config:
    latency: float = 0.2
    jitter: float = 0.02
    calls: int = 1
    seed: int = 1
    max_requests: int = 10_000
    max_seconds: float = 600.0
    idle_exit: float = 60.0


@dataclass
class Stats:
    requests: int = 0
    completions: int = 0
    errors: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    first_request: float | None = None  # time.time() of the first completion request
    last_response: float | None = None  # time.time() of the last completion response
    latencies: list[float] = field(default_factory=list)  # the sleeps actually drawn
    stop_reason: str = ""

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        lat = out.pop("latencies")
        out["mean_latency_s"] = sum(lat) / len(lat) if lat else None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        out["cpu_s"] = usage.ru_utime + usage.ru_stime
        return out


def completion(request: dict[str, Any], calls: int, serial: int) -> dict[str, Any]:
    """The scripted answer to one chat-completions request."""
    tools = [t.get("function", {}) for t in request.get("tools") or [] if isinstance(t, dict)]
    names = [str(t.get("name")) for t in tools]
    turn = sum(1 for m in request.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")
    if "submit" in names or "decide" not in names:
        terminal, arguments = "submit", {"outcome": "DEFER", "reason": "mock"}
    else:
        terminal, arguments = "decide", {"decision": "DEFER", "reason": "mock"}
    name, args = terminal, arguments
    if turn < calls - 1:
        readable = [
            n for n, t in zip(names, tools, strict=True) if str(t.get("description", "")).startswith("[read-only]")
        ]
        if readable:
            name, args = readable[0], {}
    prompt_tokens = sum(len(str(m.get("content") or "")) for m in request.get("messages") or []) // 4
    return {
        "id": f"chatcmpl-mock-{serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model", "mock")),
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{serial}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 12, "total_tokens": prompt_tokens + 12},
    }


class MockServer:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.stats = Stats()
        self.rng = random.Random(config.seed)
        self.stopped = asyncio.Event()
        self.last_activity = time.monotonic()
        self.started = time.monotonic()

    def stop(self, reason: str) -> None:
        if not self.stopped.is_set():
            self.stats.stop_reason = reason
            self.stopped.set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        try:
            while not self.stopped.is_set():
                request = await self._read_request(reader)
                if request is None:
                    break
                method, path, body = request
                status, payload = await self._respond(method, path, body)
                data = json.dumps(payload).encode()
                head = (
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    "Connection: keep-alive\r\n\r\n"
                )
                writer.write(head.encode() + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _read_request(self, reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
        line = await reader.readline()
        if not line:
            return None
        parts = line.decode("latin-1").split()
        if len(parts) < 2:
            raise ValueError("bad request line")
        method, path = parts[0].upper(), parts[1]
        length = 0
        for _ in range(MAX_HEADER_LINES):
            header = await reader.readline()
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length > MAX_BODY:
            raise ValueError("body too large")
        body = await reader.readexactly(length) if length else b""
        return method, path, body

    async def _respond(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        self.last_activity = time.monotonic()
        path = path.split("?")[0]
        if method == "POST" and path == "/shutdown":
            self.stop("shutdown")
            return 200, {"stopping": True}
        if method == "GET" and path == "/stats":
            return 200, self.stats.summary()
        if not (method == "POST" and path.endswith("/chat/completions")):
            self.stats.errors += 1
            return 404, {"error": {"message": f"mock: no route {method} {path}", "type": "not_found"}}
        stats = self.stats
        stats.requests += 1
        if stats.first_request is None:
            stats.first_request = time.time()
        stats.in_flight += 1
        stats.peak_in_flight = max(stats.peak_in_flight, stats.in_flight)
        try:
            try:
                request = json.loads(body)
            except json.JSONDecodeError:
                stats.errors += 1
                return 400, {"error": {"message": "mock: body is not JSON", "type": "invalid_request_error"}}
            if request.get("stream"):
                stats.errors += 1
                return 400, {"error": {"message": "mock: streaming is not supported", "param": "stream"}}
            delay = max(0.0, self.config.latency + self.rng.uniform(-self.config.jitter, self.config.jitter))
            stats.latencies.append(delay)
            await asyncio.sleep(delay)
            stats.completions += 1
            payload = completion(request, self.config.calls, stats.completions)
            stats.last_response = time.time()
            if stats.completions >= self.config.max_requests:
                self.stop("max_requests")
            return 200, payload
        finally:
            stats.in_flight -= 1

    async def watchdog(self) -> None:
        while not self.stopped.is_set():
            await asyncio.sleep(0.25)
            now = time.monotonic()
            if now - self.started > self.config.max_seconds:
                self.stop("max_seconds")
            elif now - self.last_activity > self.config.idle_exit:
                self.stop("idle")


async def serve(config: Config, port: int = 0, stats_path: Path | None = None) -> Stats:
    server_state = MockServer(config)
    server = await asyncio.start_server(server_state.handle, HOST, port, backlog=1024, limit=MAX_BODY)
    bound = server.sockets[0].getsockname()[1]
    print(f"PORT {bound}", flush=True)
    watchdog = asyncio.create_task(server_state.watchdog())
    await server_state.stopped.wait()
    watchdog.cancel()
    server.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(server.wait_closed(), timeout=2.0)
    if stats_path is not None:
        stats_path.write_text(json.dumps(server_state.stats.summary(), indent=1) + "\n", encoding="utf-8")
    return server_state.stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mock_openai", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed as 'PORT n')")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per completion")
    parser.add_argument("--jitter", type=float, default=0.02, help="uniform jitter, ± seconds")
    parser.add_argument("--calls", type=int, default=1, help="assistant turns per episode (last one submits)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-requests", type=int, default=10_000)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument("--idle-exit", type=float, default=60.0)
    parser.add_argument("--stats", type=Path, default=None, help="write statistics JSON here on exit")
    args = parser.parse_args(argv)
    config = Config(
        latency=args.latency,
        jitter=args.jitter,
        calls=max(1, args.calls),
        seed=args.seed,
        max_requests=args.max_requests,
        max_seconds=args.max_seconds,
        idle_exit=args.idle_exit,
    )
    stats = asyncio.run(serve(config, args.port, args.stats))
    print(f"STOPPED {stats.stop_reason} after {stats.completions} completions", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
