"""Methods: how the intervals were computed and where the scores come from."""

from __future__ import annotations

from ..structure import Section
from .context import Context


def methods_section(ctx: Context) -> Section:
    return Section(
        "methods",
        "Methods",
        notes=[
            "Unit of analysis: the case. A configuration's score on a case is the mean over its repetitions; "
            "the main table's ECS (overall, per protocol, per domain) is the mean of those case scores, the "
            "quantity its interval resamples.",
            f"Confidence intervals: percentile case bootstrap, {ctx.resamples:,} resamples, seed {ctx.seed}, "
            f"level {ctx.level:.0%}. One (resamples × cases) index matrix is drawn per set of cases and shared "
            "by every configuration; repetitions of a case are resampled together (cluster bootstrap). A rate "
            "at 0 % or 100 % gets its Wilson score interval over its cases instead (the bootstrap's has no "
            "width there); simulated coverage is at least 90 % at p = 0.01, 0.5, 0.99 and n = 86, 570.",
            "A configuration is a model (a scripted agent: the model it is served as) on a harness; the "
            + (
                "paired comparisons set each model's harnesses against its Inspect run (the study's harness "
                "comparison; `report --pairs all` compares every pair)."
                if ctx.pair_mode == "harness"
                else "paired comparisons set every pair of configurations side by side (`--pairs all`)."
            ),
            "Curves (effort, coverage, first-action timing, retrieval) are means over cases of per-case shares, "
            "with pointwise case-bootstrap bands.",
            "Scores are the evaluator's verdicts as stored in episodes.jsonl (re-score with "
            "`safeactbench evaluate` first if the evaluator changed). Definitions: docs/report.md.",
        ],
    )
