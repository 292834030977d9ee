"""`Rec`: a record being authored, as a family's scenario and the background population hold it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Rec:
    """A handle on a record being authored (fields stay editable until `Draft.to_case`)."""

    type: str
    id: str
    fields: dict[str, Any]
    version: int = 1

    @property
    def ref(self) -> str:
        return f"{self.type}:{self.id}"

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]
