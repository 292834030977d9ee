"""Case lookup by id and condition: the one place harnesses resolve what an episode plays."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from ..core.model import Case
from .data import SUITE_ENV, CaseIndex, check_suite_dir, load_suite, read_case, suite_dir
from .interventions import CONDITIONS, InterventionError, has_condition, transform

__all__ = [
    "CONDITIONS",
    "UnknownCase",
    "get_case",
    "get_single_case",
    "indexed_case",
    "played",
    "release_suite",
    "use_suite",
]


class UnknownCase(KeyError):
    pass


@lru_cache(maxsize=1)
def _by_id() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


@lru_cache(maxsize=8192)
def get_case(case_id: str, condition: str = "original") -> Case:
    """The case as played under `condition` (SPEC §8: V1 cases; V2/V3 have the stop twins)."""
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
    case = read_case(suite_dir(), case_id)
    if case is None:
        return get_case(case_id, condition)  # raises UnknownCase exactly as get_case does
    return _played_as(case, condition)


def _played_as(case: Case, condition: str) -> Case:
    try:
        return transform(case, condition)
    except InterventionError as exc:
        raise UnknownCase(str(exc)) from None


def played(cases: Iterable[Case], conditions: Iterable[str]) -> list[Case]:
    """Every (case, condition) that exists, as the case to play: V1 cases have every intervention,
    V2/V3 cases their stop twins (`interventions.has_condition`)."""
    out = []
    for condition in conditions:
        for case in cases:
            if condition == "original":
                out.append(case)
            elif has_condition(case, condition):
                out.append(get_case(case.id, condition))
    return out


def release_suite() -> None:
    """Forget the loaded suite and every played case (about 100 MB); the next lookup loads it again."""
    get_case.cache_clear()
    _by_id.cache_clear()
    load_suite.cache_clear()
    indexed_case.cache_clear()


_FORGET_ON_SWITCH: list[Callable[[], None]] = []


def forget_on_switch(forget: Callable[[], None]) -> None:
    """Have `use_suite` call `forget` (a cache's clear) whenever the suite changes: a layer above
    caches per suite without the catalog knowing it."""
    _FORGET_ON_SWITCH.append(forget)


def use_suite(directory: Path | None) -> None:
    """Play the suite in `directory` (None: the packaged one) from now on, in this process and the
    processes it starts ($SAFEACTBENCH_SUITE); everything read from the previous suite is forgotten.
    A directory that holds no suite is a CaseFileError naming what is missing."""
    chosen = None if directory is None else str(check_suite_dir(directory))
    if os.environ.get(SUITE_ENV) == chosen or (chosen is None and SUITE_ENV not in os.environ):
        return
    if chosen is None:
        del os.environ[SUITE_ENV]
    else:
        os.environ[SUITE_ENV] = chosen
    release_suite()
    _index.cache_clear()
    for forget in _FORGET_ON_SWITCH:
        forget()


@lru_cache(maxsize=1)
def _index() -> CaseIndex:
    return CaseIndex(suite_dir())


@lru_cache(maxsize=64)
def indexed_case(case_id: str, condition: str = "original") -> Case:
    """`get_case(case_id, condition)` without loading the whole suite: the case is parsed from the
    suite's text when asked for (`CaseIndex`; a small cache keeps the last ones). For a process that
    reads many records a few cases at a time (a report over a large run): its memory stays flat.
    Same answers and errors as `get_case`."""
    case = _index().get(case_id)
    if case is None:
        raise UnknownCase(f"no case {case_id!r} in the suite")
    return _played_as(case, condition)
