"""`safeactbench serve-agent` in its own process, for the tests that drive a harness through HTTP."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator


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
