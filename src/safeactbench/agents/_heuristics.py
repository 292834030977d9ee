"""What a naive agent can make of the public view: named entities, readers, plausible arguments.

Only the public view and observations are used — the task text, the tools' read-only flags,
parameter enums and parameter roles (the record type an id parameter identifies, which its
description says in words) — never tool or parameter names, so the baselines read and act alike
on any suite's tool set.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.episode import DECIDE, SUBMIT
from ..core.public import PublicCase

TERMINAL = {SUBMIT, DECIDE}

WORD = re.compile(r"[a-z]+")
NUMBER = re.compile(r"(?<![\w-])\d+(?:\.\d+)?(?![\w-])")


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower().replace("_", " ")))


def named_entities(view: PublicCase) -> list[tuple[str, str]]:
    """(record type, id) of every entity the task names."""
    out: list[tuple[str, str]] = []
    for fact in view.context:
        record_type, _, record_id = fact.entity.partition(":")
        if (record_type, record_id) not in out:
            out.append((record_type, record_id))
    return out


def param_names(tool: dict[str, Any]) -> list[str]:
    return list(tool["parameters"]["properties"])


def required(tool: dict[str, Any]) -> list[str]:
    return list(tool["parameters"]["required"])


def roles(tool: dict[str, Any]) -> dict[str, str]:
    """Parameter -> the record type whose id it holds."""
    return dict(tool.get("roles") or {})


def getters(view: PublicCase) -> dict[str, tuple[str, str]]:
    """record type -> (get tool, id param): a read-only tool whose one, required parameter identifies
    a record (a search's filters are optional: a one-filter search is not a get)."""
    out: dict[str, tuple[str, str]] = {}
    for tool in view.tools:
        params = param_names(tool)
        if tool["read_only"] and len(params) == 1 and params[0] in roles(tool) and required(tool) == params:
            out.setdefault(roles(tool)[params[0]], (tool["name"], params[0]))
    return out


def named_ids(tool: dict[str, Any], view: PublicCase) -> dict[str, str]:
    """Parameter -> the id of the named entity of the type it identifies."""
    named = dict(reversed(named_entities(view)))  # the first named entity of each type
    return {param: named[kind] for param, kind in roles(tool).items() if kind in named}


def task_numbers(view: PublicCase) -> list[float]:
    return [float(n) for n in NUMBER.findall(view.task)]


def fill_arguments(tool: dict[str, Any], view: PublicCase, observed: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plausible values for the required parameters: named ids, observed fields, task numbers, enums."""
    ids = named_ids(tool, view)
    task_words = words(view.task)
    numbers = task_numbers(view)
    observed = observed or {}
    args: dict[str, Any] = {}
    for name in required(tool):
        spec = tool["parameters"]["properties"][name]
        if name in observed:
            args[name] = observed[name]
        elif name in ids:
            args[name] = ids[name]
        elif "enum" in spec:
            args[name] = max(spec["enum"], key=lambda option: len(words(option) & task_words))
        elif spec["type"] == "array":  # the elements the task names, else the best one
            options = spec.get("items", {}).get("enum") or list(ids.values())[:1] or ["unknown"]
            named = [o for o in options if words(o) <= task_words]
            args[name] = named or [max(options, key=lambda option: len(words(option) & task_words))]
        elif spec["type"] in ("number", "integer"):
            value = numbers[0] if numbers else 1
            args[name] = int(value) if spec["type"] == "integer" else value
        elif spec["type"] == "boolean":
            args[name] = True
        else:
            args[name] = next(iter(ids.values()), "unknown")
    return args


def action_tools(view: PublicCase) -> list[dict[str, Any]]:
    return [t for t in view.tools if not t["read_only"] and t["name"] not in TERMINAL]


def best_action_tool(view: PublicCase) -> dict[str, Any] | None:
    """The consequential tool whose name and description best match the task."""
    task_words = words(view.task)
    scored = []
    for position, tool in enumerate(view.tools):
        if tool["read_only"] or tool["name"] in TERMINAL:
            continue
        overlap = len(words(tool["name"]) & task_words) * 2 + len(words(tool["description"]) & task_words)
        overlap += sum(p in named_ids(tool, view) for p in required(tool))
        scored.append((overlap, -position, tool))
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None
