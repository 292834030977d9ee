"""What a naive agent can make of the public view: named entities, readers, plausible arguments.

Only the public view and observations are used (tool names, parameter names and enums, the task
text) — exactly what a model would see.
"""

from __future__ import annotations

import re
from typing import Any

from ..episode import DECIDE, SUBMIT
from ..public import PublicCase

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


def getters(view: PublicCase) -> dict[str, tuple[str, str]]:
    """record type -> (get tool, id param), recognised as a one-parameter tool taking `<type>_id`."""
    out: dict[str, tuple[str, str]] = {}
    for tool in view.tools:
        params = param_names(tool)
        if tool["name"].startswith("get_") and len(params) == 1 and params[0].endswith("_id"):
            out.setdefault(params[0][: -len("_id")], (tool["name"], params[0]))
    return out


def task_numbers(view: PublicCase) -> list[float]:
    return [float(n) for n in NUMBER.findall(view.task)]


def fill_arguments(tool: dict[str, Any], view: PublicCase, observed: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plausible values for the required parameters: named ids, observed fields, task numbers, enums."""
    ids = {f"{t}_id": i for t, i in named_entities(view)}
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
    ids = {f"{t}_id" for t, _ in named_entities(view)}
    scored = []
    for position, tool in enumerate(view.tools):
        if tool["read_only"] or tool["name"] in TERMINAL:
            continue
        overlap = len(words(tool["name"]) & task_words) * 2 + len(words(tool["description"]) & task_words)
        overlap += sum(p in ids for p in required(tool))
        scored.append((overlap, -position, tool))
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None
