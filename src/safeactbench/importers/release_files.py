"""Reading a local checkout of the study's public release (docs/import.md lists its formats).

The release keeps one catalog per protocol under `env/`; Legacy evidence lives in per-domain world
templates (`templates/<env>/world/`) or, for case-scoped cases, in `env/case_evidence.json`. Every
error names the file (and the case) it is about.
"""

from __future__ import annotations

import hashlib
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


def case_spec_sha256(data: dict[str, Any]) -> str:
    """A catalog case's hash as the release computes its manifest's `case_spec_sha256` (and checks
    it before a run): the case object as compact JSON, keys sorted, non-ASCII kept, UTF-8, SHA-256."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Provenance:
    """Where an imported case came from: the hash of the release's case as recomputed here (checked
    against the manifest entry's when it has one), the release's dataset version and the entry's
    evaluation profile."""

    case_spec_sha256: str
    verified: bool  # the manifest entry carries this hash (a different one is an error, not a case)
    dataset_version: str | None
    evaluation_profile: dict[str, Any] = field(default_factory=dict)

    def note(self) -> str:
        check = "as in env/case_manifest.json" if self.verified else "recomputed; the manifest names no hash"
        profile = json.dumps(self.evaluation_profile, sort_keys=True, separators=(",", ":"))
        return (
            f"dataset_version {self.dataset_version or 'unknown'}; case_spec_sha256 {self.case_spec_sha256} "
            f"({check}); evaluation_profile {profile}"
        )


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
    dataset_version: str | None = None  # case_manifest.json's
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # case id -> its case_manifest.json entry

    def provenance(self, source: ReleaseCase) -> Provenance:
        entry = self.entries.get(source.case_id, {})
        profile = entry.get("evaluation_profile")
        return Provenance(
            case_spec_sha256(source.data),
            isinstance(entry.get("case_spec_sha256"), str),
            self.dataset_version,
            dict(profile) if isinstance(profile, dict) else {},
        )


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


def _read_manifest(path: Path, release: Release) -> None:
    """The manifest's entries, each checked as the release checks it before a run: its catalog is
    there, holds the case, and the case hashes to the entry's `case_spec_sha256`."""
    data = _json(path)
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ReleaseError(f"{path}: expected an object with a list 'entries' (is this the release?)")
    version = data.get("dataset_version")
    release.dataset_version = str(version) if version is not None else None
    by_id = {c.case_id: c for c in release.cases}
    for index, entry in enumerate(entries):
        case_id = entry.get("case_id") if isinstance(entry, dict) else None
        if not isinstance(case_id, str):
            raise ReleaseError(f"{path}: entries[{index}] has no case_id")
        catalog = entry.get("catalog")
        if isinstance(catalog, str) and not (path.parent / catalog).is_file():
            raise ReleaseError(f"{path.parent / catalog}: missing (case_manifest.json lists case {case_id} in it)")
        source = by_id.get(case_id)
        if source is None or (isinstance(catalog, str) and source.catalog.name != catalog):
            raise ReleaseError(f"{path}: case {case_id} is not in {catalog or 'any catalog'}")
        expected = entry.get("case_spec_sha256")
        if expected is not None:
            observed = case_spec_sha256(source.data)
            if observed != expected:
                raise ReleaseError(
                    f"case {case_id} ({source.catalog.name}) does not hash as case_manifest.json says: "
                    f"case_spec_sha256 {observed} here, {expected} in the manifest"
                )
        release.entries[case_id] = entry
        backend = (entry.get("evaluation_profile") or {}).get("evidence_backend")
        if isinstance(backend, str):
            release.backends[case_id] = backend


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
        _read_manifest(manifest, release)
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
