"""Run directories as the analysis sees them: a run is `run.json` + `episodes.jsonl`; a
configuration is everything run with one agent (or model) on one harness, repetitions merged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..records import (
    EpisodeLines,
    EpisodeRecord,
    StoreError,
    describe_duplicates,
    one_per_key,
    parse_line,
    read_meta,
)
from ..rows import Episode, EpisodeRow, episode_row
from ..runconfig import current_harness
from ..store import run_config

ORIGINAL = "original"
SCRIPTED_PROVIDER = "safeactbench"  # the offline Inspect provider that serves a scripted agent as a model
REFERENCE_HARNESS = "inspect"  # the shared harness every other harness of a model is compared with


class ReportError(ValueError):
    """Input the analysis cannot use (a missing run directory, an unknown episode); the message says which."""


@dataclass(frozen=True)
class Run:
    """One run directory."""

    path: Path
    meta: dict[str, Any]
    records: list[EpisodeRow]
    warnings: list[str] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)  # the line of each record in episodes.jsonl

    def whole(self, records: Sequence[EpisodeRow]) -> Iterator[EpisodeRecord]:
        """The stored records behind these rows of the run, read back from its file one at
        a time, in the order given: the report keeps no step's text in memory, the episode browser
        and the illustrated trajectories render them from here. A file changed since it was read
        is a ReportError."""
        if not records:
            return
        line_of = {id(r): n for r, n in zip(self.records, self.numbers, strict=True)}
        path = self.path / "episodes.jsonl"
        lines = EpisodeLines(path)  # counted as when the run was read
        for record in records:
            number = line_of[id(record)]
            if number > len(lines):
                raise ReportError(f"{path}: the file changed while the report was written (line {number} is gone)")
            stored = parse_line(path, number, lines[number - 1])
            if stored.key != record.key:
                raise ReportError(f"{path}:{number}: the file changed while the report was written")
            yield stored

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def config(self) -> str:
        return config_label(self.meta, self.records, self.path.name)

    @property
    def identity(self) -> tuple[str, str]:
        return config_identity(self.meta, self.records, self.path.name)

    @property
    def planned(self) -> int | None:
        planned = self.meta.get("planned")
        return int(planned) if isinstance(planned, int | float) else None


def latest(records: Iterable[Episode]) -> list[Episode]:
    """One record per (case, condition, repetition): a completed retry supersedes a missing attempt,
    and the first completed record of an episode is kept (the run store's rule: `one_per_key`)."""
    return [record for _, record in one_per_key(enumerate(records, start=1))[0]]


def load_run(path: Path) -> Run:
    """Read a run directory and verify every record (`verify.verify_records`: case labels from the
    suite, verdicts derived by replay, records of another configuration or suite refused). An
    episode recorded twice keeps its first record, with a warning naming the lines. A missing,
    malformed or empty file is a ReportError naming it."""
    from ..verify import check_suite, verify_lines

    path = Path(path)
    episodes = path / "episodes.jsonl"
    if not path.is_dir():
        raise ReportError(f"{path}: not a run directory")
    if not episodes.is_file():
        raise ReportError(f"{path}: no episodes.jsonl file (is this a run directory?)")
    meta_path = path / "run.json"
    try:
        meta = read_meta(meta_path) if meta_path.is_file() else {}
        run = None
        warnings = []
        if "config" in meta:
            config = run_config(meta, meta_path)
            check_suite(config, meta_path)
            run = (config.fingerprint, config.suite.checksum)
        else:  # written before runs pinned their configuration: its records must agree among themselves
            warnings.append(
                f"{path}: run.json pins no configuration (an older run); its records were checked to be of one"
            )
        lines = EpisodeLines(episodes, torn_tail=True)  # a run may be writing right now; read on demand
        verified = verify_lines(lines, episodes, run=run, allow_duplicates=True, keep=slim)
        if not verified.records:  # blank lines only, or a first line still being written
            raise ReportError(f"{episodes}: no episodes yet")
    except StoreError as exc:
        raise ReportError(str(exc)) from None
    if verified.duplicates:
        warnings.append(describe_duplicates(episodes, verified.duplicates) + "; the first record of each is used")
    if verified.changed:
        numbers = ", ".join(str(number) for number, _, _ in verified.changed[:10])
        more = " ..." if len(verified.changed) > 10 else ""
        warnings.append(
            f"{episodes}: {len(verified.changed)} stored verdict(s) or case label(s) differ from the replay "
            f"(lines {numbers}{more}); the replayed ones are used"
        )
    return Run(path=path, meta=meta, records=verified.records, warnings=warnings, numbers=verified.numbers)


def slim(record: EpisodeRecord) -> EpisodeRow:
    """A verified record as the report keeps it: a row (`rows.episode_row`); the text of its steps
    is read back from the file when shown (`Run.whole`)."""
    return episode_row(record)


def config_label(meta: dict[str, Any], records: Sequence[Episode], fallback: str = "run") -> str:
    """The configuration name: the agent (scripted name, --label or model) and, unless scripted,
    its harness: `reference`, `openai/gpt-4o · inspect`, `claude-code · command`; a CLI agent run
    without its sandbox says so: `openai/gpt-5 · codex-cli (no sandbox)`."""
    pinned: dict[str, Any] = meta["config"] if isinstance(meta.get("config"), dict) else {}
    first = records[0] if records else None
    agent = pinned.get("agent") or (first.agent if first else None) or fallback
    harness = current_harness(pinned.get("harness")) or (first.harness if first else None) or "scripted"
    if harness == "scripted":
        return str(agent)
    unsandboxed = " (no sandbox)" if pinned.get("sandbox") is False else ""  # a CLI agent run with --no-sandbox
    return f"{agent} · {harness}{unsandboxed}"


def config_identity(meta: dict[str, Any], records: Sequence[Episode], fallback: str = "run") -> tuple[str, str]:
    """(model, harness) of a configuration: what harness pairs are formed within. The model is the
    pinned model, else the agent's name (a --label); a scripted agent is the model it is served
    as (`reference` in-process is `safeactbench/reference` on a model harness), so a scripted agent
    pairs with itself run through Inspect, the lean loop or a CLI."""
    pinned: dict[str, Any] = meta["config"] if isinstance(meta.get("config"), dict) else {}
    first = records[0] if records else None
    harness = current_harness(pinned.get("harness")) or (first.harness if first else None) or "scripted"
    model = pinned.get("model") or (first.model if first else None)
    agent = pinned.get("agent") or (first.agent if first else None) or fallback
    if harness == "scripted":
        return f"{SCRIPTED_PROVIDER}/{agent}", harness
    return str(model or agent), str(harness)


@dataclass
class Configuration:
    """All runs of one configuration (one agent or model on one harness); each (run, repetition)
    is one replicate."""

    label: str
    model: str = ""
    harness: str = ""
    runs: list[Run] = field(default_factory=list)

    @property
    def records(self) -> list[EpisodeRow]:
        return [r for run in self.runs for r in run.records]

    def scored(self, condition: str | None = ORIGINAL) -> list[EpisodeRow]:
        """Completed, evaluated episodes (of one condition; None: every condition)."""
        return [
            r
            for r in self.records
            if r.status == "completed" and r.verdict is not None and (condition is None or r.condition == condition)
        ]

    def replicates(self, condition: str = ORIGINAL) -> list[tuple[str, list[EpisodeRow]]]:
        """(name, scored episodes) per run directory and repetition, in order."""
        out: list[tuple[str, list[EpisodeRow]]] = []
        for run in self.runs:
            reps: dict[int, list[EpisodeRow]] = {}
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
        model, harness = run.identity
        configs.setdefault(run.config, Configuration(run.config, model, harness)).runs.append(run)
    return list(configs.values())


PAIR_MODES = ("harness", "all")


def configuration_pairs(
    configs: Sequence[Configuration], mode: str = "harness"
) -> list[tuple[Configuration, Configuration]]:
    """The (A, B) pairs a report compares, A first in the difference A - B.

    `harness` (the study's T-harness): within one model across harnesses, each harness against the
    model's Inspect configuration (else its first-given one); models grouped in the order first
    given. `all`: every pair of configurations, across models too, in the order given."""
    if mode == "all":
        return [(a, b) for i, a in enumerate(configs) for b in configs[i + 1 :]]
    if mode != "harness":
        raise ReportError(f"pairs: unknown mode {mode!r}; choose from {list(PAIR_MODES)}")
    by_model: dict[str, list[Configuration]] = {}
    for config in configs:
        by_model.setdefault(config.model, []).append(config)
    pairs = []
    for group in by_model.values():
        reference = next((c for c in group if c.harness == REFERENCE_HARNESS), group[0])
        pairs += [(other, reference) for other in group if other is not reference]
    return pairs


def load_runs(paths: Sequence[Path]) -> list[Run]:
    if not paths:
        raise ReportError("no run directories given")
    seen: set[Path] = set()
    for p in paths:
        resolved = Path(p).resolve()
        if resolved in seen:
            raise ReportError(f"{p}: run directory given twice")
        seen.add(resolved)
    return [load_run(Path(p)) for p in paths]
