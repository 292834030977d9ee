"""`safeactbench serve-agent` in its own process, for the tests that drive a harness through HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from safeactbench.core.trajectory import Trajectory
from safeactbench.suite.data import SUITE_ENV

# two cases per protocol, from two domains where it can, with the shortest reference solutions of the
# suite: CLI agents pay seconds per call, and these tests prove the path, not the suite
TWO_PER_PROTOCOL = [
    "SAB-L-001",
    "SAB-L-002",
    "SAB-V0-001",
    "SAB-V0-002",
    "SAB-V1-001",
    "SAB-V1-025",
    "SAB-V2-033",
    "SAB-V2-001",
    "SAB-V3-022",
    "SAB-V3-111",
]
ONE_PER_PROTOCOL = TWO_PER_PROTOCOL[::2]


@contextlib.contextmanager
def serve_agent(agent: str = "reference", *options: str) -> Iterator[str]:
    """Start `serve-agent AGENT OPTIONS` on a free port; yields its base URL, stops it on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "safeactbench", "serve-agent", agent, "--idle-exit", "300", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        yield line.split(" at ")[1].strip()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def play_over_mcp(suite: Path, case_id: str, work: Path) -> Trajectory:
    """`case_id` of `suite` played by the stand-in CLI agent (tests/mcp_agent.py: an MCP SDK client in
    its own process, reading the case's reference from the same suite) through `safeactbench mcp
    --suite` over stdio; returns the trajectory the server recorded."""
    server = {
        "command": sys.executable,
        "args": ["-m", "safeactbench", "mcp", "--suite", str(suite), "--case", case_id, "--out", str(work / "episode")],
    }
    config = work / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"safeactbench": server}}))
    agent = Path(__file__).parent / "mcp_agent.py"
    env = {**os.environ, SUITE_ENV: str(suite)}
    done = subprocess.run([sys.executable, str(agent), str(config), case_id], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return Trajectory.model_validate_json((work / "episode" / "trajectory.json").read_text())
