"""The HTTP/1.1 both local model servers speak (`serve-agent`, `model_route`): standard library
asyncio streams, keep-alive, each response sent whole with its length (a stream included: the
answer is complete before it is sent). A handler maps a request to a `Reply`."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

MAX_BODY = 16 * 1024 * 1024
MAX_HEADER_LINES = 100
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}

Request = tuple[str, str, dict[str, str], bytes]  # method, path, headers (lower-case names), body
Reply = tuple[int, bytes, str]  # status, body, content type
Handler = Callable[[str, str, dict[str, str], bytes], Awaitable[Reply]]


def error(status: int, message: str, kind: str = "invalid_request_error") -> Reply:
    return status, json.dumps({"error": {"message": message, "type": kind}}).encode(), "application/json"


def as_json(payload: dict[str, Any]) -> Reply:
    return 200, json.dumps(payload).encode(), "application/json"


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request on the connection, or None when the client closed it."""
    line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) < 2:
        raise ValueError("bad request line")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADER_LINES):
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    if length > MAX_BODY:
        raise ValueError("body too large")
    body = await reader.readexactly(length) if length else b""
    return parts[0].upper(), parts[1], headers, body


async def serve_connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handle: Handler, open_: Callable[[], bool]
) -> None:
    """Answer the connection's requests with `handle` while `open_()`; a broken client ends it."""
    try:
        while open_():
            request = await read_request(reader)
            if request is None:
                break
            status, data, content_type = await handle(*request)
            head = (
                f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(data)}\r\nConnection: keep-alive\r\n\r\n"
            )
            writer.write(head.encode() + data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
