"""A played mutant as data: its trajectory, the step at which each tagged action was applied and
what it returned, and the world's record versions step by step. Plain data, so the label oracle can
read it without importing the episode or the world that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.trajectory import Trajectory


@dataclass
class Played:
    trajectory: Trajectory
    action_steps: dict[str, int]  # action id -> step at which its tagged call was applied
    results: dict[str, dict[str, Any]]
    versions: list[dict[str, int]]  # versions[t]: every record's version just before step t (the world's)
