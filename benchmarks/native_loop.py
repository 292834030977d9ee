"""A minimal native asyncio episode loop against an OpenAI-compatible endpoint — a measurement aid.

    python -m benchmarks.native_loop --base-url http://127.0.0.1:PORT/v1 --cases A,B --repeat 4 \
        --concurrency 64 --out DIR

Not a project harness: it exists to show how much of the Inspect path's per-episode cost is the
harness itself. It plays the same episodes as `run --model` (same prompts, tool list, Episode,
evaluator and run store, one JSON line per episode with fsync) with a plain HTTP client and an
asyncio semaphore of `--concurrency` episodes, and none of Inspect's transcript, logging and
tool-copying machinery. Requests go to the given base URL only (the benchmark passes the loopback
mock). The client is aiohttp when installed: httpx's connection pool scans every connection on every
request (half the loop's time at 64 connections), which would measure httpx rather than the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from safeactbench.catalog import get_case
from safeactbench.episode import Episode
from safeactbench.evaluator import evaluate
from safeactbench.harness.prompts import system_prompt, user_prompt
from safeactbench.public import public_view
from safeactbench.runner import episode_seed, now_iso
from safeactbench.store import EpisodeRecord, RunStore

MAX_TURNS = 64


def openai_tools(view_tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for t in view_tools:
        hint = "[read-only] " if t["read_only"] else "" if t["name"] in ("submit", "decide") else "[changes state] "
        out.append(
            {
                "type": "function",
                "function": {"name": t["name"], "description": hint + t["description"], "parameters": t["parameters"]},
            }
        )
    return out


Post = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


async def play(post: Post, case_id: str, repetition: int, store: RunStore, model: str) -> None:
    case = get_case(case_id, "original")
    started, clock = now_iso(), time.perf_counter()
    view = public_view(case)
    episode = Episode(case)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(view)},
        {"role": "user", "content": user_prompt(view)},
    ]
    tools = openai_tools(view.tools)
    usage: dict[str, int] = {}
    for _ in range(MAX_TURNS):
        body = await post({"model": model, "messages": messages, "tools": tools})
        for key, value in (body.get("usage") or {}).items():
            if isinstance(value, int):
                usage[key] = usage.get(key, 0) + value
        message = body["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            episode.stop("agent_stopped")
            break
        for call in calls:
            observation = episode.call(call["function"]["name"], call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(observation)})
        if episode.done:
            break
    episode.stop()
    trajectory = episode.trajectory()
    record = EpisodeRecord(
        case_id=case.id,
        protocol=case.protocol,
        domain=case.domain,
        family=case.family,
        agent=model,
        harness="native-benchmark",
        model=model,
        condition="original",
        repetition=repetition,
        seed=episode_seed(case.id, "original", repetition),
        trajectory=trajectory,
        verdict=evaluate(case, trajectory),
        started_at=started,
        duration_s=time.perf_counter() - clock,
        usage=usage,
    )
    store.append(record)


async def run(base_url: str, case_ids: list[str], repeat: int, concurrency: int, out: Path, model: str) -> None:
    store = RunStore(out)
    store.open({"harness": "native-benchmark"}, resume=False)
    gate = asyncio.Semaphore(concurrency)
    url = base_url.rstrip("/") + "/chat/completions"
    async with _client(concurrency) as post_json:

        async def post(payload: dict[str, Any]) -> dict[str, Any]:
            return await post_json(url, payload)

        async def one(case_id: str, repetition: int) -> None:
            async with gate:
                await play(post, case_id, repetition, store, model)

        await asyncio.gather(*(one(c, r) for r in range(repeat) for c in case_ids))


def _client(concurrency: int) -> Any:
    """An async context manager yielding `post_json(url, payload) -> dict`."""
    import contextlib

    @contextlib.asynccontextmanager
    async def aiohttp_client() -> Any:
        import aiohttp

        connector = aiohttp.TCPConnector(limit=concurrency)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

            async def post_json(url: str, payload: dict[str, Any]) -> dict[str, Any]:
                async with session.post(url, json=payload) as response:
                    response.raise_for_status()
                    return await response.json()  # type: ignore[no-any-return]

            yield post_json

    @contextlib.asynccontextmanager
    async def httpx_client() -> Any:
        import httpx

        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(limits=limits, timeout=120.0) as client:

            async def post_json(url: str, payload: dict[str, Any]) -> dict[str, Any]:
                response = await client.post(url, json=payload)
                response.raise_for_status()
                return response.json()  # type: ignore[no-any-return]

            yield post_json

    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return httpx_client()
    return aiohttp_client()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.native_loop", description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--cases", required=True, help="comma-separated case ids")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--model", default="mock")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    ids = [c for c in args.cases.split(",") if c]
    asyncio.run(run(args.base_url, ids, args.repeat, args.concurrency, args.out, args.model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
