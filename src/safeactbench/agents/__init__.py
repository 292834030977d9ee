"""Scripted baseline agents."""

from .scripted import AGENTS, Agent, get_agent

__all__ = ["AGENTS", "Agent", "get_agent"]
