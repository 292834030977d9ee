"""A stand-in for a CLI agent: an MCP client written with the official SDK.

    python tests/mcp_agent.py MCP_CONFIG CASE_ID [reference|fabricate|crash|hang|quit]

It starts the server named in the MCP config (as Claude Code / Codex would), lists the tools and
plays the case's reference solution through MCP — or, with `fabricate`, replaces every result id
it should pass on with an invented one.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from safeactbench.core.model import ResultRef
from safeactbench.suite.catalog import get_case


@contextlib.asynccontextmanager
async def connect(server: dict[str, Any]) -> AsyncIterator[tuple[Any, Any]]:
    """The MCP server of a config entry: an HTTP `url` or a stdio `command` with `args`."""
    if "url" in server:
        async with streamable_http_client(server["url"]) as (read, write, *_):
            yield read, write
    else:
        async with stdio_client(StdioServerParameters(command=server["command"], args=server["args"])) as streams:
            yield streams


async def play(config_path: str, case_id: str, mode: str) -> list[dict[str, Any]]:
    with open(config_path) as handle:
        [server] = json.load(handle)["mcpServers"].values()
    observations = []
    async with connect(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        results: dict[str, dict[str, Any]] = {}
        for step in get_case(case_id).reference[: 1 if mode == "first" else None]:
            assert step.tool in tools, step.tool
            args = {}
            for name, value in step.arguments.items():
                if isinstance(value, ResultRef):
                    value = "RF-FAKE01" if mode == "fabricate" else results[value.result_of][value.key]
                args[name] = value
            result = await session.call_tool(step.tool, args)
            observation = json.loads(result.content[0].text)
            observations.append(observation)
            if step.action_id and observation.get("status") == "applied":
                results[step.action_id] = observation["result"]
    return observations


def main() -> None:
    config, case_id, mode = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "reference")
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        time.sleep(600)
    if mode == "quit":  # one call, then the CLI exits cleanly without submitting
        anyio.run(play, config, case_id, "first")
        return
    anyio.run(play, config, case_id, mode)


if __name__ == "__main__":
    main()
