"""Case lookup by id and condition: the one place harnesses resolve what an episode plays."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .interventions import CONDITIONS, InterventionError, transform
from .model import Case, Protocol
from .suite.data import DATA_DIR, load_suite, read_case

__all__ = ["CONDITIONS", "UnknownCase", "get_case", "get_single_case", "played"]


class UnknownCase(KeyError):
    pass


@lru_cache(maxsize=1)
def _by_id() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


@lru_cache(maxsize=8192)
def get_case(case_id: str, condition: str = "original") -> Case:
    """The case as played under `condition` (SPEC §8 transforms apply to V1 cases)."""
    try:
        case = _by_id()[case_id]
    except KeyError:
        raise UnknownCase(f"no case {case_id!r} in the suite") from None
    return _played_as(case, condition)


def get_single_case(case_id: str, condition: str = "original") -> Case:
    """`get_case(case_id, condition)` for a process that plays one case (`safeactbench mcp`).

    Reads and validates that case alone instead of the whole suite (a CLI agent gives its MCP
    server little time to start). Once the suite is loaded, or for an id the quick read does not
    find, it is `get_case` itself, so the answer and the errors are the same.
    """
    if load_suite.cache_info().currsize:
        return get_case(case_id, condition)
    case = read_case(DATA_DIR, case_id)
    if case is None:
        return get_case(case_id, condition)  # raises UnknownCase exactly as get_case does
    return _played_as(case, condition)


def _played_as(case: Case, condition: str) -> Case:
    try:
        return transform(case, condition)
    except InterventionError as exc:
        raise UnknownCase(str(exc)) from None


def played(cases: Iterable[Case], conditions: Iterable[str]) -> list[Case]:
    """Every (case, condition) that exists, as the case to play: interventions apply to V1 cases only."""
    out = []
    for condition in conditions:
        for case in cases:
            if condition == "original":
                out.append(case)
            elif case.protocol == Protocol.V1:
                out.append(get_case(case.id, condition))
    return out
