"""Inspect AI entry point: importing this registers the task and the scripted-agent model API."""

from .inspect_task import safeactbench
from .scripted_model import ScriptedAgentAPI

__all__ = ["ScriptedAgentAPI", "safeactbench"]
