"""A model server with faults: an HTTP proxy in front of `serve-agent` that records every request
body and misbehaves as real servers do.

- `overflow_after=N`: a request with more than N messages gets HTTP 400 `context_length_exceeded`
  (OpenAI's and vLLM's shape for a conversation longer than the context window; `overflow_status`
  500 as llama-cpp-python answers it);
- `reject_tool_choice=VALUE`: a request with that `tool_choice` gets HTTP 500 (llama-cpp-python 0.3
  and `required`);
- `reject_null_content`: an assistant message with `"content": null` gets HTTP 500 (as
  llama-cpp-python's server answers it);
- `die_after=N`: after N completions the server is gone: the listening socket closes and every
  later connection is refused;
- `text_calls`: every reply writes a call of the first offered tool as text (`<tool_call>...`), as a
  server answers that does not parse the model's tool-call format.

`port` reopens a server at the address of one that died (a run resumes against the same URL).
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


class FaultProxy:
    def __init__(
        self,
        upstream: str,
        *,
        overflow_after: int | None = None,
        overflow_status: int = 400,
        reject_null_content: bool = False,
        die_after: int | None = None,
        text_calls: bool = False,
        reject_tool_choice: str | None = None,
        port: int = 0,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.overflow_after = overflow_after
        self.overflow_status = overflow_status  # llama-cpp-python answers an overflow with HTTP 500
        self.reject_null_content = reject_null_content
        self.die_after = die_after
        self.text_calls = text_calls
        self.reject_tool_choice = reject_tool_choice  # llama-cpp-python 0.3 answers tool_choice 'required' with 500
        self.requests: list[dict[str, Any]] = []  # the JSON bodies of every POST received
        self.completions = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.kill()

    def kill(self) -> None:
        """The server dies: no new connection is accepted."""
        threading.Thread(target=self._server.shutdown, daemon=True).start()
        self._server.server_close()

    def _fault(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        messages = body.get("messages") or []
        if self.overflow_after is not None and len(messages) > self.overflow_after:
            return self.overflow_status, {
                "error": {
                    "message": f"This model's maximum context length is 2048 tokens; the messages ({len(messages)}) "
                    "exceed it.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
        if self.reject_tool_choice is not None and body.get("tool_choice") == self.reject_tool_choice:
            return 500, {"error": {"message": "Internal Server Error"}}
        null_content = any(m.get("role") == "assistant" and m.get("content") is None for m in messages)
        if self.reject_null_content and null_content:
            return 500, {"error": {"message": "7 validation errors for ChatCompletionRequest: Input should be ..."}}
        if self.text_calls:
            tools = body.get("tools") or [{"function": {"name": "none"}}]
            call = json.dumps({"name": tools[0]["function"]["name"], "arguments": {}})
            message = {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            return 200, {"id": "text", "object": "chat.completion", "model": "m", "choices": [choice], "usage": usage}
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _forward(self, method: str, data: bytes | None) -> None:
                headers = {"Content-Type": "application/json"}
                for name in ("Authorization", "X-SafeActBench-Episode"):
                    if self.headers.get(name):
                        headers[name] = self.headers[name]
                url = proxy.upstream + self.path.removeprefix("/v1")
                request = urllib.request.Request(url, data, headers, method=method)
                try:
                    with urllib.request.urlopen(request, timeout=60) as resp:
                        self._send(resp.status, resp.read(), resp.headers.get("Content-Type", "application/json"))
                except urllib.error.HTTPError as exc:
                    self._send(exc.code, exc.read())

            def do_GET(self) -> None:
                self._forward("GET", None)

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(data or b"{}")
                with proxy._lock:
                    proxy.requests.append(body)
                    fault = proxy._fault(body)
                    proxy.completions += fault is None
                    dying = proxy.die_after is not None and proxy.completions > proxy.die_after
                if dying:
                    proxy.kill()
                    self.close_connection = True
                    return  # the connection drops without an answer
                if fault is not None:
                    self._send(fault[0], json.dumps(fault[1]).encode())
                    return
                self._forward("POST", data)

        return Handler
