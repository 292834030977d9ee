"""Our tool names as CLI agents rename them, both ways.

CLI agents offer our MCP tools under names of their own, built from the MCP server's name
(`backoffice`, `mcp_server.SERVER_NAME`) and the tool's:

| client                | offered as                     |
|-----------------------|--------------------------------|
| Claude Code, Qwen Code | `mcp__backoffice__get_charge` |
| Codex CLI             | `get_charge` in the Responses API namespace `mcp__backoffice` |
| OpenCode              | `backoffice_get_charge`        |
| Gemini CLI            | `mcp_backoffice_get_charge`    |
| others                | `backoffice.get_charge`, `backoffice/get_charge`, `backoffice:get_charge` |

`offered_tool` sends a scripted agent's call (it knows only `get_charge`) to the offered tool that
is named exactly that, else to the one offered tool whose name is ours behind such a prefix (or a
namespace member of that name), else unchanged: the client then answers an unknown tool, as it
would a confused model's call. `episode_tool` reads a name the other way: which of our tools a
call the model made under the client's name is for (None: none of ours).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

SERVER = "backoffice"  # mcp_server.SERVER_NAME (kept here so this module imports nothing)
SEPARATORS = ("__", ".", "/", ":")  # after any server name
_PREFIX = re.compile(rf"^(?:(?:mcp)?(?:__|_))?{SERVER}(?:__|_|\.|/|:)")  # after ours, `_` too


@dataclass(frozen=True)
class OfferedTool:
    """A tool as the client offered it; `namespace` names the Responses API namespace it is in."""

    name: str
    namespace: str | None = None


def renames(name: str, tool: str) -> bool:
    """Whether a client's `name` is our `tool` behind a server prefix."""
    if not name.endswith(tool) or name == tool:
        return False
    prefix = name[: -len(tool)]
    return bool(_PREFIX.fullmatch(prefix)) or prefix.endswith(SEPARATORS)


def offered_tool(tool: str, offered: Iterable[OfferedTool]) -> OfferedTool:
    """The offered tool to send the agent's call `tool` to (see the module docstring)."""
    near: dict[OfferedTool, None] = {}  # a set that keeps the order (a tool may be listed twice)
    for candidate in offered:
        if candidate.name == tool and candidate.namespace is None:
            return candidate
        if renames(candidate.name, tool) or (candidate.namespace is not None and candidate.name == tool):
            near[candidate] = None
    return next(iter(near)) if len(near) == 1 else OfferedTool(tool)


def episode_tool(name: str, ours: Iterable[str]) -> str | None:
    """Which of our tools `ours` a call under the client's `name` is for: the same name, else the
    longest of ours it renames (so `get_charge` is not taken for `charge`), else None."""
    names = list(ours)
    if name in names:
        return name
    renamed = [tool for tool in names if renames(name, tool)]
    return max(renamed, key=len) if renamed else None
