"""The scripted agents: baselines (`scripted`, `diligent`, with shared `_heuristics`) and the
probes that check a harness (`probes`). Each plays an episode through the same tool calls a model
makes; `reference` and `comply` are the two ends every metric is tested at.

May import the engine (`core`) only.
"""

from .scripted import AGENTS, Agent, get_agent

__all__ = ["AGENTS", "Agent", "get_agent"]
