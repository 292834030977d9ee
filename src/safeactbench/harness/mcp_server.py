"""Serve one episode over MCP (stdio) with the official SDK: `safeactbench mcp --case ID --out DIR`.

CLI agents (Claude Code, Codex, Qwen Code, …) connect to it as an MCP server. Every call goes to
the episode, whatever it holds; the trajectory is rewritten atomically to DIR/trajectory.json after
each call, so nothing is lost if the agent's process is killed.

Tools are described as every other harness describes them (`prompts.tool_description`) and carry
MCP annotations clients use to decide what runs without approval: information tools are
read-only, consequential tools destructive, and the terminal `submit`/`decide` neither (they end
the episode but change no business state; an agent that needs approval to finish never finishes).
All act on the episode's own world only, so none is open-world.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ..core.episode import Episode
from ..core.prompts import PROMPT_VERSION, TERMINAL_TOOLS, system_prompt, tool_description
from ..core.public import public_view
from ..core.version import __version__
from ..suite.catalog import get_single_case

TRAJECTORY_FILE = "trajectory.json"
SERVER_NAME = "backoffice"  # what CLIs prefix tool names with (mcp__backoffice__...): it names no benchmark


def write_trajectory(episode: Episode, out: Path) -> None:
    tmp = out / (TRAJECTORY_FILE + ".tmp")
    tmp.write_text(episode.trajectory().model_dump_json(), encoding="utf-8")
    tmp.replace(out / TRAJECTORY_FILE)


def tool_annotations(tool: dict[str, Any]) -> types.ToolAnnotations:
    """MCP hints for a public tool (`episode.tool_list`): read-only, terminal or consequential."""
    if tool["read_only"]:
        return types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
    terminal = tool["name"] in TERMINAL_TOOLS
    return types.ToolAnnotations(
        read_only_hint=False, destructive_hint=not terminal, idempotent_hint=False, open_world_hint=False
    )


def build_server(
    episode: Episode, out: Path, on_list: Callable[[], None] | None = None, instructions: bool = True
) -> Server[Any]:
    """The episode's MCP server; `on_list` is told whenever a client lists the tools (it connected).
    With `instructions`, the system prompt is the server's instructions (for a client given only the
    task); a harness that puts the system prompt in the agent's prompt passes False, so it is sent once."""
    view = public_view(episode.case)
    tools = [
        types.Tool(
            name=t["name"],
            description=tool_description(t),
            input_schema=t["parameters"],
            annotations=tool_annotations(t),
        )
        for t in view.tools
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if on_list is not None:
            on_list()
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments: dict[str, Any] | str | None = params.arguments
        observation = episode.call(params.name, arguments if arguments is not None else {})
        write_trajectory(episode, out)
        failed = observation.get("status") in ("error", "rejected")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(observation, ensure_ascii=False))],
            structured_content=observation,
            is_error=failed,
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=f"{system_prompt(view)}\n(prompt version {PROMPT_VERSION})" if instructions else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(case_id: str, condition: str, out: Path, http_port: int | None = None) -> None:
    """Serve the episode on stdio, or with `http_port` (0: any free port) over streamable HTTP on
    127.0.0.1 at /mcp, announcing `serving episode at http://127.0.0.1:PORT/mcp` on stdout (how
    `run --harness-cmd` serves a sandboxed CLI from outside its sandbox). Either way the trajectory
    is in OUT/trajectory.json after every call and when the server stops (SIGTERM included)."""
    out = out.resolve()  # 'a/../b' is b; nothing is created along the way
    out.mkdir(parents=True, exist_ok=True)
    episode = Episode(get_single_case(case_id, condition))
    write_trajectory(episode, out)
    server = build_server(episode, out)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        if http_port is None:
            anyio.run(main)
        else:
            _serve_http(server, http_port)
    finally:
        signal.signal(signal.SIGTERM, previous)
        episode.stop()
        write_trajectory(episode, out)


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds through serve's finally: the trajectory is written


def _serve_http(server: Server[Any], port: int) -> None:
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    print(f"serving episode at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
