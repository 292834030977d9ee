"""The engine every verdict depends on: the case model (`model`, `values`), a world per episode
(`world`) with its evidence ledger (`ledger`), the episode agents call (`episode`), the evaluator
(`evaluator`), what an agent may see and is told (`public`, `prompts`), findings as text
(`render`), reference scripts (`script`) and the package version (`version`).

Imports nothing else of the project: every other layer is built on it.
"""

from .episode import Episode
from .evaluator import evaluate
from .model import Case, Protocol
from .public import PublicCase, public_view
from .trajectory import Trajectory
from .verdict import Verdict

__all__ = ["Case", "Episode", "Protocol", "PublicCase", "Trajectory", "Verdict", "evaluate", "public_view"]
