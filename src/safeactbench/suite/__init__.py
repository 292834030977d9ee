"""A suite: its files (`data`: reading, writing and checking `cases.jsonl`, `tools.json`,
`manifest.json`), the suite a process plays and its variants (`catalog`, `interventions`), and
the tools that make and check one: `build` (cases from scenario families), `families` (your own
families folder), `reference` (reference solutions), `lint`, `validation`, `check` and `report`
(the suite report), `model_use` (which case-model concepts a suite uses).

May import the engine (`core`), the family framework (`authoring`) and the packaged domains
(`domains`, only when building); never the agents, runs, harnesses, analysis or command line.
Importing this package loads no cases: `load_suite()` reads them on first use.
"""

from .catalog import CONDITIONS, UnknownCase, get_case, played, use_suite
from .data import CaseFileError, load_suite, suite_manifest

__all__ = [
    "CONDITIONS",
    "CaseFileError",
    "UnknownCase",
    "get_case",
    "load_suite",
    "played",
    "suite_manifest",
    "use_suite",
]
