"""SafeActBench: does a tool-using agent establish the evidence it needs before it acts?"""

from .episode import Episode
from .evaluator import evaluate
from .model import Case, Protocol, Trajectory, Verdict

__version__ = "0.1.0"

__all__ = ["Case", "Episode", "Protocol", "Trajectory", "Verdict", "__version__", "evaluate"]
