"""Which offered tool a scripted agent's call goes to when a client renames our tools.

CLI agents offer our MCP tools under names of their own: `mcp__safeactbench__get_charge` (Claude
Code, Qwen Code), `safeactbench.get_charge`, or as members of a Responses API `namespace` entry
(Codex: namespace `mcp__safeactbench`, member `get_charge`). A scripted agent knows only
`get_charge`; it is sent under the offered tool named exactly that, else under the one offered tool
whose name ends with it after a separator (or a namespace member of that name), else unchanged: the
client then answers an unknown tool, as it would a confused model's call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SEPARATORS = ("__", ".", "/", ":")


@dataclass(frozen=True)
class OfferedTool:
    """A tool as the client offered it; `namespace` names the Responses API namespace it is in."""

    name: str
    namespace: str | None = None


def _ends_with(name: str, tool: str) -> bool:
    return name.endswith(tool) and name[: -len(tool)].endswith(SEPARATORS)


def offered_tool(tool: str, offered: Iterable[OfferedTool]) -> OfferedTool:
    """The offered tool to send the agent's call `tool` to (see the module docstring)."""
    near: dict[OfferedTool, None] = {}  # a set that keeps the order (a tool may be listed twice)
    for candidate in offered:
        if candidate.name == tool and candidate.namespace is None:
            return candidate
        if _ends_with(candidate.name, tool) or (candidate.namespace is not None and candidate.name == tool):
            near[candidate] = None
    return next(iter(near)) if len(near) == 1 else OfferedTool(tool)
