"""Runs: what a run is (`runconfig`), how its episodes are planned and played (`runner`), and how they
are stored and read back — the run store (`store`), its records (`records`) and rows (`rows`,
`rowstore`), their verification (`verify`) and the one-writer lock (`runlock`).

Imports the agents, the suite and the engine below it; never a harness, the analysis or the command line above.
"""

from .records import EpisodeRecord
from .runconfig import RunConfig
from .runner import Job, finish, plan, play_scripted, run_metadata
from .store import RunStore, StoreError

__all__ = [
    "EpisodeRecord",
    "Job",
    "RunConfig",
    "RunStore",
    "StoreError",
    "finish",
    "plan",
    "play_scripted",
    "run_metadata",
]
