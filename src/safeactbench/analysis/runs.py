"""Run directories as the analysis sees them: a run is `run.json` + `episodes.jsonl`; a
configuration is everything run with one agent (or model) on one harness, repetitions merged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import EpisodeRecord, StoreError, read_episodes

ORIGINAL = "original"


class ReportError(ValueError):
    """Input the analysis cannot use (a missing run directory, an unknown episode); the message says which."""


@dataclass(frozen=True)
class Run:
    """One run directory."""

    path: Path
    meta: dict[str, Any]
    records: list[EpisodeRecord]

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def config(self) -> str:
        return config_label(self.meta, self.records, self.path.name)

    @property
    def planned(self) -> int | None:
        planned = self.meta.get("planned")
        return int(planned) if isinstance(planned, int | float) else None


def latest(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """One record per (case, condition, repetition): a completed retry supersedes a missing attempt
    (the same rule as the run store)."""
    by_key: dict[tuple[str, str, int], EpisodeRecord] = {}
    for record in records:
        if record.key not in by_key or record.status == "completed":
            by_key[record.key] = record
    return list(by_key.values())


def load_run(path: Path) -> Run:
    """Read a run directory; a missing or malformed file is a ReportError naming it."""
    path = Path(path)
    episodes = path / "episodes.jsonl"
    if not path.is_dir():
        raise ReportError(f"{path}: not a run directory")
    if not episodes.is_file():
        raise ReportError(f"{path}: no episodes.jsonl (is this a run directory?)")
    meta: dict[str, Any] = {}
    meta_path = path / "run.json"
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ReportError(f"{meta_path}: {exc}") from None
    try:
        records = latest(read_episodes(episodes))
    except StoreError as exc:
        raise ReportError(str(exc)) from None
    return Run(path=path, meta=meta, records=records)


def config_label(meta: dict[str, Any], records: Sequence[EpisodeRecord], fallback: str = "run") -> str:
    """The configuration name: the agent (scripted name, --label or model) and, unless scripted,
    its harness: `reference`, `openai/gpt-4o · inspect`, `claude-code · command`."""
    first = records[0] if records else None
    agent = meta.get("agent") or meta.get("model") or (first.agent if first else None) or fallback
    harness = meta.get("harness") or (first.harness if first else None) or "scripted"
    return str(agent) if harness == "scripted" else f"{agent} · {harness}"


@dataclass
class Configuration:
    """All runs of one configuration; each (run, repetition) is one replicate."""

    label: str
    runs: list[Run] = field(default_factory=list)

    @property
    def records(self) -> list[EpisodeRecord]:
        return [r for run in self.runs for r in run.records]

    def scored(self, condition: str | None = ORIGINAL) -> list[EpisodeRecord]:
        """Completed, evaluated episodes (of one condition; None: every condition)."""
        return [
            r
            for r in self.records
            if r.status == "completed" and r.verdict is not None and (condition is None or r.condition == condition)
        ]

    def replicates(self, condition: str = ORIGINAL) -> list[tuple[str, list[EpisodeRecord]]]:
        """(name, scored episodes) per run directory and repetition, in order."""
        out: list[tuple[str, list[EpisodeRecord]]] = []
        for run in self.runs:
            reps: dict[int, list[EpisodeRecord]] = {}
            for r in run.records:
                if r.status == "completed" and r.verdict is not None and r.condition == condition:
                    reps.setdefault(r.repetition, []).append(r)
            for rep in sorted(reps):
                out.append((f"{run.name}#{rep}", reps[rep]))
        return out

    @property
    def conditions(self) -> list[str]:
        return sorted({r.condition for r in self.records}, key=lambda c: (c != ORIGINAL, c))


def group_configurations(runs: Sequence[Run]) -> list[Configuration]:
    """Configurations in the order their first run was given."""
    configs: dict[str, Configuration] = {}
    for run in runs:
        configs.setdefault(run.config, Configuration(run.config)).runs.append(run)
    return list(configs.values())


def load_runs(paths: Sequence[Path]) -> list[Run]:
    if not paths:
        raise ReportError("no run directories given")
    seen: set[Path] = set()
    runs = []
    for p in paths:
        resolved = Path(p).resolve()
        if resolved in seen:
            raise ReportError(f"{p}: run directory given twice")
        seen.add(resolved)
        runs.append(load_run(Path(p)))
    return runs
