"""JSON Schemas of the file formats, generated from the pydantic models (checked in under docs/schema/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..core.model import Case
from ..core.public import PublicCase
from ..core.trajectory import Trajectory
from ..core.verdict import Verdict
from .store import EpisodeRecord

SCHEMAS: dict[str, type[BaseModel]] = {
    "case": Case,
    "public-case": PublicCase,
    "trajectory": Trajectory,
    "verdict": Verdict,
    "episode-record": EpisodeRecord,
}


def schema_documents() -> dict[str, str]:
    """file name -> schema text, deterministic."""
    out: dict[str, str] = {}
    for name, model in SCHEMAS.items():
        schema: dict[str, Any] = model.model_json_schema()
        schema["$id"] = f"https://safeactbench.org/schema/{name}.schema.json"
        out[f"{name}.schema.json"] = json.dumps(schema, indent=1, sort_keys=True) + "\n"
    return out


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in schema_documents().items():
        path = directory / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
