"""SafeActBench: does a tool-using agent establish the evidence it needs before it acts?

The Python API (docs/python-api.md): load a suite and its cases, play an episode, score a
trajectory, play an agent into a run store and read it back. The packages, from the bottom layer
up (docs/architecture.md): `core` (the engine), `authoring` (the family framework), `domains`
(the six packaged domains), `suite` (suite files, variants, building and checking), `agents`
(scripted agents), `runs` (the run store and runner), then `harness`, `analysis`, `audit` and
`importers` side by side, and `cli` on top. A package imports only the layers below it.
"""

from .agents import AGENTS, Agent, get_agent
from .core import Case, Episode, Protocol, PublicCase, Trajectory, Verdict, evaluate, public_view
from .core.version import __version__
from .runs import EpisodeRecord, Job, RunConfig, RunStore, StoreError, finish, plan, play_scripted, run_metadata
from .suite import CONDITIONS, CaseFileError, UnknownCase, get_case, load_suite, played, suite_manifest, use_suite

__all__ = [
    "AGENTS",
    "CONDITIONS",
    "Agent",
    "Case",
    "CaseFileError",
    "Episode",
    "EpisodeRecord",
    "Job",
    "Protocol",
    "PublicCase",
    "RunConfig",
    "RunStore",
    "StoreError",
    "Trajectory",
    "UnknownCase",
    "Verdict",
    "__version__",
    "evaluate",
    "finish",
    "get_agent",
    "get_case",
    "load_suite",
    "plan",
    "play_scripted",
    "played",
    "public_view",
    "run_metadata",
    "suite_manifest",
    "use_suite",
]
