"""Reading a local checkout of the study's public release (docs/import.md lists its formats).

The release keeps one catalog per protocol under `env/`; Legacy evidence lives in per-domain world
templates (`templates/<env>/world/`) or, for case-scoped cases, in `env/case_evidence.json`. Every
error names the file (and the case) it is about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.model import Protocol

# catalog file under env/ -> (protocol, key of its case list)
CATALOGS: dict[str, tuple[Protocol, str]] = {
    "cases.json": (Protocol.LEGACY, "cases"),
    "non_execution_cases.json": (Protocol.V0, "episodes"),
    "state_action_cases.json": (Protocol.V1, "episodes"),
    "linear_workflow_cases.json": (Protocol.V2, "episodes"),
    "multi_step_cases.json": (Protocol.V3, "episodes"),
}


class ReleaseError(ValueError):
    """A checkout that cannot be read; the message names the file."""


@dataclass(frozen=True)
class ReleaseCase:
    """One case of a catalog, as the release wrote it."""

    case_id: str
    protocol: Protocol
    catalog: Path
    data: dict[str, Any]


@dataclass
class Release:
    cases: list[ReleaseCase]
    backends: dict[str, str] = field(default_factory=dict)  # case id -> evidence backend (case_manifest.json)
    case_evidence: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # case-scoped records
    worlds: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # env id -> Legacy world records
    # env id -> tool -> argument -> its controlled vocabulary (env/action_argument_vocabularies.json)
    vocabularies: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReleaseError(f"{path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ReleaseError(f"{path}: not valid JSON ({exc})") from None


def _catalog(path: Path, protocol: Protocol, key: str) -> list[ReleaseCase]:
    data = _json(path)
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ReleaseError(f"{path}: expected an object with a list {key!r}")
    cases = []
    for index, item in enumerate(items):
        case_id = item.get("episode_id") or item.get("scenario_id") if isinstance(item, dict) else None
        if not isinstance(case_id, str):
            raise ReleaseError(f"{path}: {key}[{index}] has no episode_id / scenario_id")
        cases.append(ReleaseCase(case_id, protocol, path, item))
    return cases


def _world_records(directory: Path) -> list[dict[str, Any]]:
    """Every record of a Legacy world template (`{"records": [...]}` files and JSONL lines)."""
    records: list[dict[str, Any]] = []
    for path in sorted(directory.rglob("*")):
        if path.suffix == ".json":
            data = _json(path)
            found = data.get("records") if isinstance(data, dict) else None
            records += [r for r in found or [] if isinstance(r, dict)]
        elif path.suffix == ".jsonl":
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        raise ReleaseError(f"{path}:{number}: not valid JSON") from None
    return records


def read_release(checkout: Path) -> Release:
    env = checkout / "env"
    if not env.is_dir():
        raise ReleaseError(f"{checkout}: no env/ folder (a checkout of the release holds its catalogs there)")
    cases: list[ReleaseCase] = []
    for name, (protocol, key) in CATALOGS.items():
        if (env / name).is_file():
            cases += _catalog(env / name, protocol, key)
    if not cases:
        raise ReleaseError(f"{env}: none of the catalogs {', '.join(CATALOGS)}")
    release = Release(cases)
    manifest = env / "case_manifest.json"
    if manifest.is_file():
        for entry in _json(manifest).get("entries", []):
            backend = (entry.get("evaluation_profile") or {}).get("evidence_backend")
            if isinstance(backend, str):
                release.backends[str(entry.get("case_id"))] = backend
    evidence = env / "case_evidence.json"
    if evidence.is_file():
        for entry in _json(evidence).get("cases", []):
            release.case_evidence[str(entry.get("case_id"))] = list(entry.get("records") or [])
    vocabularies = env / "action_argument_vocabularies.json"
    if vocabularies.is_file():
        release.vocabularies = dict(_json(vocabularies).get("vocabularies") or {})
    templates = checkout / "templates"
    if templates.is_dir():
        for world in sorted(templates.glob("*/world")):
            release.worlds[world.parent.name] = _world_records(world)
    return release
