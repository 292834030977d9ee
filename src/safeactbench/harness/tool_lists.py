"""One prepared value per distinct public tool list (tool schemas built once, not once per request).

Every case of a domain shares its tool objects, so the ids of a case's tools name its tool list;
each entry holds those objects, so the ids in its key stay theirs. Legacy cases all offer `decide`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from ..core.model import Case, Protocol

T = TypeVar("T")


class ToolListCache(Generic[T]):
    def __init__(self, build: Callable[[Case], T], size: int = 64) -> None:
        self._build = build
        self._size = size
        self._entries: dict[tuple[Hashable, ...], tuple[object, T]] = {}

    def get(self, case: Case) -> T:
        legacy = case.protocol == Protocol.LEGACY
        key: tuple[Hashable, ...] = ("legacy",) if legacy else tuple(map(id, case.tools))
        entry = self._entries.get(key)
        if entry is None:
            if len(self._entries) >= self._size:
                self._entries.clear()
            entry = (None if legacy else tuple(case.tools), self._build(case))
            self._entries[key] = entry
        return entry[1]
