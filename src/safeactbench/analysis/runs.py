"""Run directories as the analysis sees them: a run is `run.json` + `episodes.jsonl`; a
configuration is everything run with one agent (or model) on one harness, repetitions merged.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runs.records import (
    EpisodeLines,
    EpisodeRecord,
    RunId,
    StoreError,
    describe_duplicates,
    parse_line,
    read_meta,
)
from ..runs.rows import Episode, EpisodeRow, decode_row, encode_row, episode_row
from ..runs.rowstore import MemoryBudget, RowStore, SpillError
from ..runs.runconfig import current_harness
from ..runs.store import run_config

ORIGINAL = "original"
SCRIPTED_PROVIDER = "safeactbench"  # the offline Inspect provider that serves a scripted agent as a model
REFERENCE_HARNESS = "inspect"  # the shared harness every other harness of a model is compared with


class ReportError(ValueError):
    """Input the analysis cannot use (a missing run directory, an unknown episode); the message says which."""


@dataclass(frozen=True)
class Run:
    """One run directory: its metadata and its verified episodes as rows (within the report's memory
    budget, the rest on disk: `rowstore.RowStore`), in the order they were replayed (by case,
    condition and repetition)."""

    path: Path
    meta: dict[str, Any]
    records: RowStore[EpisodeRow]
    warnings: list[str] = field(default_factory=list)

    def whole(self, records: Iterable[EpisodeRow]) -> Iterator[EpisodeRecord]:
        """The stored records behind these rows of the run, read back from its file one at a time
        (by the line each row remembers), in the order given: the report keeps no step's text in
        memory, the episode browser and the illustrated trajectories render them from here. A file
        changed since it was read is a ReportError."""
        path = self.path / "episodes.jsonl"
        lines: EpisodeLines | None = None
        for record in records:
            if lines is None:
                lines = EpisodeLines(path)  # counted as when the run was read
            if record.line > len(lines):
                raise ReportError(f"{path}: the file changed while the report was written (line {record.line} is gone)")
            stored = parse_line(path, record.line, lines[record.line - 1])
            if stored.key != record.key:
                raise ReportError(f"{path}:{record.line}: the file changed while the report was written")
            yield stored

    @property
    def first(self) -> EpisodeRow | None:
        return next(iter(self.records), None)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def config(self) -> str:
        return config_label(self.meta, self.first, self.path.name)

    @property
    def identity(self) -> tuple[str, str]:
        return config_identity(self.meta, self.first, self.path.name)

    @property
    def planned(self) -> int | None:
        planned = self.meta.get("planned")
        return int(planned) if isinstance(planned, int | float) else None


def load_run(path: Path, budget: MemoryBudget | None = None) -> Run:
    """Read a run directory and verify every record (`verify.verify_lines`: case labels from the
    suite, verdicts derived by replay, records of another configuration or suite refused), each
    reduced to a row; rows beyond `budget` (shared by the runs of one report) wait on disk. An
    episode recorded twice keeps its first record, with a warning naming the lines. A missing,
    malformed or empty file is a ReportError naming it."""
    from ..runs.verify import check_suite, verify_lines

    path = Path(path)
    episodes = path / "episodes.jsonl"
    if not path.is_dir():
        raise ReportError(f"{path}: not a run directory")
    if not episodes.is_file():
        raise ReportError(f"{path}: no episodes.jsonl file (is this a run directory?)")
    meta_path = path / "run.json"
    rows: RowStore[EpisodeRow] = RowStore(budget, encode_row, decode_row)
    try:
        meta = read_meta(meta_path) if meta_path.is_file() else {}
        run = None
        warnings = []
        if "config" in meta:
            config = run_config(meta, meta_path)
            check_suite(config, meta_path)
            run = RunId.of(config)
        else:  # written before runs pinned their configuration: its records must agree among themselves
            warnings.append(
                f"{path}: run.json pins no configuration (an older run); its records were checked to be of one"
            )
        lines = EpisodeLines(episodes, torn_tail=True)  # a run may be writing right now; read on demand
        verified = verify_lines(lines, episodes, run=run, allow_duplicates=True, keep=episode_row, into=rows)
        if not rows:  # blank lines only, or a first line still being written
            raise ReportError(f"{episodes}: no episodes yet")
    except (StoreError, SpillError) as exc:
        raise ReportError(str(exc)) from None
    if verified.duplicates:
        warnings.append(describe_duplicates(episodes, verified.duplicates) + "; the first record of each is used")
    if verified.changed_lines:
        numbers = ", ".join(str(number) for number in verified.changed_lines[:10])
        more = " ..." if len(verified.changed_lines) > 10 else ""
        warnings.append(
            f"{episodes}: {len(verified.changed_lines)} stored verdict(s) or case label(s) differ from the replay "
            f"(lines {numbers}{more}); the replayed ones are used"
        )
    return Run(path=path, meta=meta, records=rows, warnings=warnings)


def config_label(meta: dict[str, Any], first: Episode | None, fallback: str = "run") -> str:
    """The configuration name: the agent (scripted name, --label or model) and, unless scripted,
    its harness: `reference`, `openai/gpt-4o · inspect`, `claude-code · command`; a CLI agent run
    without its sandbox says so: `openai/gpt-5 · codex-cli (no sandbox)`."""
    pinned: dict[str, Any] = meta["config"] if isinstance(meta.get("config"), dict) else {}
    agent = pinned.get("agent") or (first.agent if first else None) or fallback
    harness = current_harness(pinned.get("harness")) or (first.harness if first else None) or "scripted"
    if harness == "scripted":
        return str(agent)
    unsandboxed = " (no sandbox)" if pinned.get("sandbox") is False else ""  # a CLI agent run with --no-sandbox
    return f"{agent} · {harness}{unsandboxed}"


def config_identity(meta: dict[str, Any], first: Episode | None, fallback: str = "run") -> tuple[str, str]:
    """(model, harness) of a configuration: what harness pairs are formed within. The model is the
    pinned model, else the agent's name (a --label); a scripted agent is the model it is served
    as (`reference` in-process is `safeactbench/reference` on a model harness), so a scripted agent
    pairs with itself run through Inspect, the lean loop or a CLI."""
    pinned: dict[str, Any] = meta["config"] if isinstance(meta.get("config"), dict) else {}
    harness = current_harness(pinned.get("harness")) or (first.harness if first else None) or "scripted"
    model = pinned.get("model") or (first.model if first else None)
    agent = pinned.get("agent") or (first.agent if first else None) or fallback
    if harness == "scripted":
        return f"{SCRIPTED_PROVIDER}/{agent}", harness
    return str(model or agent), str(harness)


class Rows:
    """Rows of some runs that pass a test, read afresh on each pass (a run's rows may wait on disk):
    iterate it as often as needed, never index it."""

    def __init__(self, runs: Sequence[Run], keep: Callable[[EpisodeRow], bool] = lambda r: True) -> None:
        self.runs = runs
        self.keep = keep

    def __iter__(self) -> Iterator[EpisodeRow]:
        for run in self.runs:
            for row in run.records:
                if self.keep(row):
                    yield row

    def count(self) -> int:
        return sum(1 for _ in self)

    def where(self, keep: Callable[[EpisodeRow], bool]) -> Rows:
        """These rows, narrowed by a further test."""
        outer = self.keep
        return Rows(self.runs, lambda r: outer(r) and keep(r))


def is_scored(row: Episode) -> bool:
    return row.status == "completed" and row.verdict is not None


def condition_in(*conditions: str) -> Callable[[EpisodeRow], bool]:
    """A test for `Rows.where`: the episode was played under one of these conditions."""
    return lambda row: row.condition in conditions


def case_in(cases: Container[str]) -> Callable[[EpisodeRow], bool]:
    """A test for `Rows.where`: the episode is of one of these cases."""
    return lambda row: row.case_id in cases


@dataclass
class Configuration:
    """All runs of one configuration (one agent or model on one harness); each (run, repetition)
    is one replicate."""

    label: str
    model: str = ""
    harness: str = ""
    runs: list[Run] = field(default_factory=list)

    @property
    def records(self) -> Rows:
        return Rows(self.runs)

    def scored(self, condition: str | None = ORIGINAL) -> Rows:
        """Completed, evaluated episodes (of one condition; None: every condition)."""
        if condition is None:
            return Rows(self.runs, is_scored)
        return Rows(self.runs, lambda r: is_scored(r) and r.condition == condition)

    def replicates(self, condition: str = ORIGINAL) -> list[tuple[str, dict[str, int]]]:
        """(name, case -> score) per run directory and repetition with a scored episode of
        `condition`, in order: one pass over each run."""
        out: list[tuple[str, dict[str, int]]] = []
        for run in self.runs:
            reps: dict[int, dict[str, int]] = {}
            for r in run.records:
                if is_scored(r) and r.condition == condition and r.verdict is not None:
                    reps.setdefault(r.repetition, {})[r.case_id] = r.verdict.score
            out += [(f"{run.name}#{rep}", reps[rep]) for rep in sorted(reps)]
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
    budget = MemoryBudget()  # one budget for every run of the report
    return [load_run(Path(p), budget) for p in paths]
