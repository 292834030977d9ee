"""What every report section is computed from: the runs grouped into configurations, their scored
episodes in the original condition, the shared case bootstrap, and the JSON data the sections fill."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..figures import configuration_colours
from ..metrics import ORIGINAL, case_scores, domain_order
from ..runs import Run, configuration_pairs, group_configurations
from ..stats import Bootstrap


def notes_of(*notes: str | None) -> list[str]:
    """The notes that are there (a section's explanations of what it cannot show)."""
    return [note for note in notes if note]


class Context:
    """The inputs of `build_report`, with what the sections derive from them in common. Sections
    add the numbers behind their tables to `data` (report.json), in the report's order."""

    def __init__(
        self,
        runs: Sequence[Run],
        episodes: Sequence[str] | None,
        resamples: int,
        seed: int,
        level: float,
        cases: Mapping[str, Any] | None,
        pairs: str = "harness",
        tasks: Mapping[str, str] | None = None,
    ) -> None:
        self.runs = list(runs)
        self.configs = group_configurations(self.runs)
        self.labels = [c.label for c in self.configs]
        self.pair_mode = pairs
        self.pairs = configuration_pairs(self.configs, pairs)
        self.colours = configuration_colours(self.labels)  # one colour per configuration in every figure
        self.episode_specs = list(episodes) if episodes else None
        self.resamples, self.seed, self.level = resamples, seed, level
        self.cases = cases
        self.tasks = tasks or {}  # "case|condition" -> the task text the agent read (the episode browser)
        self.original = {c.label: c.scored(ORIGINAL) for c in self.configs}
        self.case_scores = {label: case_scores(rs) for label, rs in self.original.items()}
        units = sorted({u for scores in self.case_scores.values() for u in scores})
        self.boot = Bootstrap(units, resamples, seed, level)
        self.protocol_of: dict[str, str] = {}
        self.domain_of: dict[str, str] = {}
        for rs in self.original.values():  # one pass: a configuration's rows may be on disk
            for r in rs:
                self.protocol_of[r.case_id], self.domain_of[r.case_id] = r.protocol.value, r.domain
        self.domains = domain_order(self.domain_of.values())
        self.conditions = sorted(
            {r.condition for c in self.configs for r in c.records}, key=lambda c: (c != ORIGINAL, c)
        )
        # configurations without a scored episode in the original condition: their rows stay empty
        self.unscored = [label for label, scores in self.case_scores.items() if not scores]
        self.data: dict[str, Any] = {
            "configurations": self.labels,
            "colours": self.colours,
            "settings": {"resamples": resamples, "seed": seed, "level": level, "unit": "case", "pairs": pairs},
        }

    def original_note(self, what: str | None = None) -> str | None:
        """Why numbers computed on the original condition are absent, or None when every configuration
        has a scored original episode. `what` names what the section computes there ("ECS by domain");
        without it, the note says which conditions were played instead (the main results)."""
        if not self.unscored:
            return None
        if len(self.unscored) < len(self.labels):
            names = ", ".join(self.unscored)
            return f"No scored episode in the original condition for {names}: no numbers of it here (–)."
        if what is not None:
            return f"No scored episode in the original condition: {what} is computed on it."
        note = "No scored episode in the original condition."
        if ORIGINAL not in self.conditions:
            note += f" The runs played {', '.join(self.conditions)} only (add original to --condition)."
        return note

    def bootstrap_for(self, units: Iterable[str]) -> Bootstrap:
        """The shared bootstrap when it holds every unit (the cases scored in the original condition),
        else one over its units and these: a case played only under a condition is resampled too."""
        extra = set(units) - set(self.boot.position)
        if not extra:
            return self.boot
        return Bootstrap(sorted({*self.boot.units, *extra}), self.resamples, self.seed, self.level)
