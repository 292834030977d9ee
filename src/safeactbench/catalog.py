"""Case lookup by id and condition: the one place harnesses resolve what an episode plays."""

from __future__ import annotations

from functools import lru_cache

from .model import Case
from .suite.data import load_suite

CONDITIONS = ("original",)


class UnknownCase(KeyError):
    pass


@lru_cache(maxsize=1)
def _by_id() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


def get_case(case_id: str, condition: str = "original") -> Case:
    """The case as played under `condition` (SPEC §8 transforms apply here)."""
    try:
        case = _by_id()[case_id]
    except KeyError:
        raise UnknownCase(f"no case {case_id!r} in the suite") from None
    if condition not in CONDITIONS:
        raise UnknownCase(f"unknown condition {condition!r}; available: {list(CONDITIONS)}")
    return case
