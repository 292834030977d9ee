"""The thinnest CLI agent, for measuring what a CLI harness itself costs (`measure.cli_harnesses`).

    python3 -I -S thin_cli.py BASE_URL MCP_URL PROMPT_FILE MODEL

Standard library only (it runs on the system Python inside an episode's sandbox): it lists the
MCP server's tools (streamable HTTP), then asks BASE_URL's chat completions for the next call,
executes it over MCP and sends the result back, until the model answers without a call. Its own
work is a Python start-up and a little JSON, so an episode's time is the harness's: the sandbox,
the tool server, the model route, the relays. Its last line is the seconds each turn took (the
model's answer and the tool call), the harness's cost per step as the CLI sees it.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from typing import Any

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class MCP:
    def __init__(self, url: str) -> None:
        self.url, self.session, self.serial = url, None, 0
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "thin", "version": "0"}}
        self.request("initialize", hello)
        self.notify("notifications/initialized")

    def _post(self, body: dict[str, Any]) -> Any:
        headers = dict(MCP_HEADERS, **({"mcp-session-id": self.session} if self.session else {}))
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=60) as response:
            self.session = response.headers.get("mcp-session-id") or self.session
            text = response.read().decode()
        data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        text = data[-1] if data else text
        return json.loads(text) if text.strip() else None

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.serial += 1
        return self._post({"jsonrpc": "2.0", "id": self.serial, "method": method, "params": params or {}})["result"]

    def notify(self, method: str) -> None:
        self._post({"jsonrpc": "2.0", "method": method})


def chat(base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base_url}/chat/completions", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer none"}, method="POST",
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def main() -> None:
    base_url, mcp_url, prompt_file, model = sys.argv[1:5]
    tools = MCP(mcp_url)
    listed = tools.request("tools/list")["tools"]
    functions = [{"name": t["name"], "description": t.get("description", ""), "parameters": t["inputSchema"]}
                 for t in listed]  # fmt: skip
    offered = [{"type": "function", "function": function} for function in functions]
    with open(prompt_file, encoding="utf-8") as handle:
        messages: list[dict[str, Any]] = [{"role": "user", "content": handle.read()}]
    turns: list[float] = []  # seconds per turn: the model's answer, then the tool call it asked for
    while True:
        started = time.perf_counter()
        message = chat(base_url, {"model": model, "messages": messages, "tools": offered})["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls or None})
        if not calls:
            print(message.get("content") or "")
            print(json.dumps({"turns_s": turns}))  # the last line: what `measure.cli_harnesses` reads
            return
        for call in calls:
            function = call["function"]
            arguments = json.loads(function["arguments"])
            result = tools.request("tools/call", {"name": function["name"], "arguments": arguments})
            text = "".join(part.get("text", "") for part in result.get("content", []))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        turns.append(time.perf_counter() - started)


if __name__ == "__main__":
    main()
