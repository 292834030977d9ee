"""The host side of `--harness-cmd` episodes: one event loop, in a thread of the run's process,
serving every episode's tool server and relaying its model traffic.

An episode hands over the listening sockets `episode_net` opened inside its network namespace:

- its tool server: the episode's MCP server (the official SDK, streamable HTTP) at a path with a
  per-episode secret, so even a client that somehow reached the socket is answered 404 without it;
- its model endpoint: every connection is relayed, byte for byte, to the real endpoint from the
  host's network. A refused connection is counted (`EpisodeLink.refused`): an endpoint that is
  down is seen in seconds instead of after the CLI's own retries and the episode's timeout.

Nothing runs per episode but coroutines: no server process to start (or to leave behind on
SIGTERM), no import per episode.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.episode import Episode
from .episode_net import Upstream
from .mcp_server import build_server

RELAY_CONNECT_S = 10.0
CHUNK = 65536


@dataclass
class EpisodeLink:
    """What the gateway saw of one episode (read by the harness thread; ints and strs only)."""

    secret: str
    tool_port: int
    listed: bool = False  # a client listed the tools: the CLI connected
    reached: int = 0  # model connections relayed
    refused: int = 0  # model connections the endpoint refused since the last one it took
    last_refusal: str = ""
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    servers: list[Any] = field(default_factory=list)

    @property
    def tool_path(self) -> str:
        return f"/{self.secret}/mcp"


class Gateway:
    """One loop thread per run; `open` an episode's servers, `close` them when it ends."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="episode-gateway", daemon=True)
        self._thread.start()

    def _run(self, coroutine: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def open(
        self,
        episode: Episode,
        out: Path,
        secret: str,
        tool_socket: socket.socket,
        relays: list[tuple[socket.socket, Upstream]],
    ) -> EpisodeLink:
        link = EpisodeLink(secret=secret, tool_port=tool_socket.getsockname()[1])
        self._run(self._open(link, episode, out, tool_socket, relays))
        return link

    def close(self, link: EpisodeLink) -> None:
        self._run(self._close(link))

    async def _open(
        self,
        link: EpisodeLink,
        episode: Episode,
        out: Path,
        tool_socket: socket.socket,
        relays: list[tuple[socket.socket, Upstream]],
    ) -> None:
        import uvicorn

        def listed() -> None:
            link.listed = True

        server = build_server(episode, out, on_list=listed, instructions=False)
        app = server.streamable_http_app(streamable_http_path=link.tool_path)
        config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
        tool_server = uvicorn.Server(config)
        link.servers.append(tool_server)
        link.tasks.append(asyncio.create_task(tool_server.serve(sockets=[tool_socket])))
        for listener, upstream in relays:
            link.servers.append(
                await asyncio.start_server(functools.partial(self._relay, link, upstream), sock=listener)
            )

    async def _close(self, link: EpisodeLink) -> None:
        for server in link.servers:
            if isinstance(server, asyncio.Server):
                server.close()
            else:
                server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.gather(*link.tasks, return_exceptions=True)

    async def _relay(
        self, link: EpisodeLink, upstream: Upstream, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            far_reader, far_writer = await asyncio.wait_for(
                asyncio.open_connection(upstream.host, upstream.port), RELAY_CONNECT_S
            )
        except (TimeoutError, OSError) as exc:
            link.refused += 1
            link.last_refusal = f"{upstream.host}:{upstream.port}: {exc or type(exc).__name__}"
            writer.close()
            return
        link.reached += 1
        link.refused = 0
        await asyncio.gather(_pipe(reader, far_writer), _pipe(far_reader, writer), return_exceptions=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.close()


__all__ = ["EpisodeLink", "Gateway"]
