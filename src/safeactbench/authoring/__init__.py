"""The authoring API for your own scenario families (docs/authoring.md).

Everything a family module needs, in one import: a `Domain` with its tools (declared with the
tool shorthands) and written `Policy` records, `Family` objects whose `build(draft)` writes one
scenario into a `Draft`, and the enums a stop gold names. `safeactbench suite new DIR` writes an
example that uses exactly this; `safeactbench suite build --from DIR/families` builds it.

The modules underneath are the framework itself: `family` (Domain, Family), `draft` (a scenario
as it is written), `rec`, `population` and `fake` (records and background worlds), `tools` (tool
shorthands), `policy` (written policies and grounding), `situations`, `stops` and `consistency`
(what makes a scenario coherent), `reach` (what a scenario's text may name). May import `core`
only.
"""

from __future__ import annotations

from ..core.model import Protocol, StopBasis, StopOutcome
from . import fake
from .draft import Draft, Rec
from .family import Domain, Family
from .policy import Policy
from .tools import (
    NOW,
    action_tool,
    arg,
    creates,
    fld,
    get_tool,
    invariant,
    lit,
    p_bool,
    p_int,
    p_num,
    p_str,
    search_tool,
)

__all__ = [
    "NOW",
    "Domain",
    "Draft",
    "Family",
    "Policy",
    "Protocol",
    "Rec",
    "StopBasis",
    "StopOutcome",
    "action_tool",
    "arg",
    "creates",
    "fake",
    "fld",
    "get_tool",
    "invariant",
    "lit",
    "p_bool",
    "p_int",
    "p_num",
    "p_str",
    "search_tool",
]
