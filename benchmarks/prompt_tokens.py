"""Prompt size: tokens a model reads per episode, by protocol, and how much of it a prompt cache can
reuse. Counted offline with OpenAI's o200k_base encoding (the `bpe-openai` wheel carries it) on the
requests the lean harness sends for the reference agent's episodes; other tokenizers differ by
some percent, not in the shape.

A request is the tool list plus every message so far (chat completions resend the conversation).
Cacheable: the part of a request that an earlier request began with — the previous request of the
episode, or, for an episode's first request, the tool list and system prompt every episode of the
domain shares (prompt version 2 keeps both identical across episodes).
"""

from __future__ import annotations

import json
from collections import defaultdict
from statistics import mean
from typing import Any

MESSAGE_OVERHEAD = 4  # tokens of role and framing per chat message (OpenAI's published estimate)


def _encoder() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def prompt_tokens(n_cases: int | None = None) -> dict[str, Any]:
    """Per protocol: first-request tokens (system, task, tools), prompt tokens per episode, requests
    per episode and the cacheable share; per domain: the tool list's tokens."""
    from safeactbench.core.prompts import system_prompt, user_prompt
    from safeactbench.core.public import public_view
    from safeactbench.harness.lean import _tools_json

    from .measure import reference_trajectories, suite_cases

    enc = _encoder()

    def count(text: str) -> int:
        return len(enc.encode(text))

    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    tool_lists: dict[str, int] = {}  # tool list JSON -> tokens
    tools_by_domain: dict[str, int] = {}  # the interactive tool list of each domain
    for case, trajectory in reference_trajectories(suite_cases(n_cases)):
        view = public_view(case)
        listed = _tools_json(case)
        tools = tool_lists.setdefault(listed, count(listed))
        if not view.static:
            tools_by_domain[case.domain] = max(tools, tools_by_domain.get(case.domain, 0))
        system = count(system_prompt(view)) + MESSAGE_OVERHEAD
        task = count(user_prompt(view)) + MESSAGE_OVERHEAD
        conversation, total, cacheable, previous = system + task, 0, 0, tools + system
        for step in trajectory.steps:
            request = tools + conversation
            total += request
            cacheable += previous  # what the last request (or the domain's shared prefix) began with
            arguments = step.arguments if isinstance(step.arguments, str) else json.dumps(step.arguments)
            conversation += count(step.tool + arguments) + MESSAGE_OVERHEAD
            conversation += count(json.dumps(step.observation, ensure_ascii=False)) + MESSAGE_OVERHEAD
            previous = request
        rows[case.protocol.value].append(
            {
                "first": tools + system + task,
                "tools": tools,
                "system": system,
                "task": task,
                "episode": total,
                "requests": len(trajectory.steps),
                "cacheable": cacheable,
            }
        )
    by_protocol = {
        protocol: {
            "episodes": len(items),
            "first_request": mean(i["first"] for i in items),
            "tools": mean(i["tools"] for i in items),
            "system": mean(i["system"] for i in items),
            "task": mean(i["task"] for i in items),
            "requests": mean(i["requests"] for i in items),
            "per_episode": mean(i["episode"] for i in items),
            "cacheable_share": sum(i["cacheable"] for i in items) / max(1, sum(i["episode"] for i in items)),
        }
        for protocol, items in sorted(rows.items())
    }
    domains = dict(sorted(tools_by_domain.items()))
    return {"encoding": "o200k_base", "by_protocol": by_protocol, "tools_by_domain": domains}
