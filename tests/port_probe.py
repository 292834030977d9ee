"""An adversarial agent for the isolation test: stdlib only, so it runs on the system Python inside
an episode's sandbox.

    python3 port_probe.py OWN_MCP_URL MARK [HOST:PORT ...]

It knocks on every TCP listener it can see (/proc/net/tcp) and on every HOST:PORT it is given (the
test's foreign servers), speaks MCP (streamable HTTP) to each at its own path and at /mcp, and calls
the first tool of every server that answers with MARK as the argument. It prints one JSON line:
the addresses it could connect to and the servers whose tools it called.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from urllib.parse import urlsplit

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def listeners() -> set[tuple[str, int]]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            if state == "0A":  # LISTEN
                address, port = local.split(":")
                host = socket.inet_ntoa(bytes.fromhex(address)[::-1]) if len(address) == 8 else "::1"
                found.add((host, int(port, 16)))
    return found


def rpc(url: str, body: dict, session: str | None) -> tuple[dict | None, str | None]:
    headers = dict(HEADERS, **({"mcp-session-id": session} if session else {}))
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        session = response.headers.get("mcp-session-id") or session
        text = response.read().decode()
    for line in text.splitlines():
        if line.startswith("data:"):
            text = line[5:]
    return (json.loads(text) if text.strip() else None), session


def call_first_tool(url: str, mark: str) -> bool:
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}
        _, session = rpc(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, None)
        rpc(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        listed, _ = rpc(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
        tool = listed["result"]["tools"][0]
        name, param = tool["name"], next(iter(tool["inputSchema"].get("properties", {"x": 0})))
        rpc(
            url,
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": {param: mark}}},
            session,
        )
    except Exception:
        return False
    return True


def main() -> None:
    own, mark, given = sys.argv[1], sys.argv[2], sys.argv[3:]
    targets = listeners() | {(h, int(p)) for h, p in (g.rsplit(":", 1) for g in given)}
    reachable, called = [], []
    for host, port in sorted(targets):
        try:
            socket.create_connection((host, port), timeout=2).close()
        except OSError:
            continue
        reachable.append(f"{host}:{port}")
        for path in {urlsplit(own).path, "/mcp"}:
            url = f"http://{host}:{port}{path}"
            if call_first_tool(url, mark):
                called.append(url)
    print(json.dumps({"reachable": reachable, "called": called}))


if __name__ == "__main__":
    main()
