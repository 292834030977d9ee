"""`mcp` and `serve-agent`: one episode's tools over MCP, a scripted agent as a model endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..agents import AGENTS, get_agent
from ..suite.catalog import UnknownCase
from .common import SuiteOption, app, check_out_dir, choose_suite, err, fail, os_reason


@app.command()
def mcp(
    case_id: Annotated[str, typer.Option("--case", help="the case to serve")],
    out: Annotated[Path, typer.Option(help="directory for trajectory.json")],
    condition: Annotated[str, typer.Option(help="condition of the case")] = "original",
    http: Annotated[
        int | None, typer.Option(min=0, max=65535, help="serve over streamable HTTP on 127.0.0.1:PORT (0: any)")
    ] = None,
    suite: SuiteOption = None,
) -> None:
    """Serve one episode over MCP on stdio or HTTP (for CLI agents); records OUT/trajectory.json."""
    choose_suite(suite)
    from ..harness.mcp_server import serve

    try:
        serve(case_id, condition, out, http)
    except UnknownCase as exc:
        raise fail(str(exc.args[0])) from None
    except OSError as exc:  # OUT is a file, cannot be created, or trajectory.json cannot be written
        raise fail(f"--out {out}: {os_reason(out, exc)}") from None


@app.command("serve-agent")
def serve_agent(
    agent: Annotated[str, typer.Argument(help=f"scripted agent: {', '.join(AGENTS)}")],
    port: Annotated[int, typer.Option(min=0, max=65535, help="port on 127.0.0.1 (0: any free port)")] = 0,
    latency: Annotated[float, typer.Option(min=0, help="seconds before each answer")] = 0.0,
    jitter: Annotated[float, typer.Option(min=0, help="± uniform jitter on the latency, seconds")] = 0.0,
    fail_first: Annotated[
        int, typer.Option("--fail", min=0, help="answer the first N requests of every episode with an error")
    ] = 0,
    fail_status: Annotated[int, typer.Option(min=400, max=599, help="HTTP status of those errors")] = 500,
    seed: Annotated[int, typer.Option(help="seed of the latency jitter")] = 1,
    max_seconds: Annotated[float, typer.Option(min=0, help="stop after this many seconds")] = 3600.0,
    idle_exit: Annotated[
        float, typer.Option(min=0, help="stop after this many seconds without a request (0: never)")
    ] = 600.0,
    stats: Annotated[Path | None, typer.Option(help="write the server's statistics (JSON) here on exit")] = None,
    suite: SuiteOption = None,
) -> None:
    """Serve a scripted agent as an OpenAI-compatible chat-completions endpoint on 127.0.0.1 (offline)."""
    choose_suite(suite)
    import asyncio

    from ..harness.agent_server import ServerConfig, serve

    try:
        get_agent(agent)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from None
    if stats is not None:
        check_out_dir("--stats", stats.parent, stats)
        if stats.is_dir():
            raise fail(f"--stats {stats}: is a directory; name the file to write")
    config = ServerConfig(agent, latency, jitter, seed, fail_first, fail_status, max_seconds, idle_exit)

    def ready(bound: int) -> None:
        print(f"serving scripted agent {agent!r} at http://127.0.0.1:{bound}/v1", flush=True)

    try:
        result = asyncio.run(serve(config, port, stats, ready))
    except OSError as exc:  # binding the port (--stats was checked above; a write that fails there says so)
        where = f"--stats {stats}" if stats is not None and exc.filename == str(stats) else f"--port {port}"
        raise fail(f"{where}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        return
    err.print(f"stopped ({result.stop_reason}) after {result.completions} completions")
