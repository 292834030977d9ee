"""SafeActBench: does a tool-using agent establish the evidence it needs before it acts?"""

from .core.episode import Episode
from .core.evaluator import evaluate
from .core.model import Case, Protocol, Trajectory, Verdict

__version__ = "0.1.0"

__all__ = ["Case", "Episode", "Protocol", "Trajectory", "Verdict", "__version__", "evaluate"]
