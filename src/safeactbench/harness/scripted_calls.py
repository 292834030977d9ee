"""A scripted agent's calls on a case, for the harnesses that serve scripted agents as a model.

Worlds are deterministic, so playing the agent once on a shadow episode gives exactly the calls it
makes against the real one: the Inspect model API (`--model safeactbench/<agent>`) and the
OpenAI-compatible agent server (`safeactbench serve-agent`) answer each model turn with the next
call of this sequence.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from ..agents import get_agent
from ..core.episode import Episode, episode_seed
from ..core.public import public_view
from ..suite.catalog import forget_on_switch, get_case

Call = tuple[str, Any]  # (tool, arguments as recorded: a JSON object, or text)
DONE_TEXT = "I have nothing more to do."  # the answer once the sequence is exhausted


@lru_cache(maxsize=4096)
def scripted_calls(agent_name: str, case_id: str, condition: str, repetition: int) -> tuple[Call, ...]:
    """The whole call sequence; cached (forgotten when the suite changes), so callers must not
    mutate the arguments they get."""
    case = get_case(case_id, condition)
    shadow = Episode(case)
    get_agent(agent_name).play(shadow, public_view(case), random.Random(episode_seed(case_id, condition, repetition)))
    return tuple((s.tool, s.arguments) for s in shadow.steps)


forget_on_switch(scripted_calls.cache_clear)
