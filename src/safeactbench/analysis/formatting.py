"""Formatting of numbers, rates and intervals for the report's cells and for its JSON data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .metrics import Rate, best_marks
from .stats import Interval
from .structure import Cell

DASH = "–"


def pct(value: float | None, decimals: int = 1) -> str:
    return DASH if value is None else f"{100 * value:.{decimals}f}"


def rate_text(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return DASH
    return f"{100 * rate.value:.1f} ({rate.successes}/{rate.n})"


def ci_text(iv: Interval, scale: float = 100.0, signed: bool = False) -> str:
    if iv.low is None or iv.high is None:
        return DASH
    f = "{:+.1f}" if signed else "{:.1f}"
    return f"[{f.format(scale * iv.low)}, {f.format(scale * iv.high)}]"


def excludes_zero(iv: Interval) -> bool:
    """Whether an interval of a difference lies wholly on one side of 0 (a clear difference)."""
    return iv.low is not None and iv.high is not None and (iv.low > 0 or iv.high < 0)


def points(value: float | None) -> str:
    return DASH if value is None else f"{value:+.1f}"


def rate_json(rate: Rate | None) -> dict[str, Any] | None:
    if rate is None:
        return None
    return {"successes": rate.successes, "n": rate.n, "value": rate.value}


def iv_json(iv: Interval) -> dict[str, Any]:
    return {"estimate": iv.estimate, "low": iv.low, "high": iv.high, "n": iv.n}


def marked_column(values: Sequence[float | None], texts: Sequence[str], higher_is_better: bool = True) -> list[Cell]:
    marks = best_marks(values, higher_is_better)
    return [Cell(t, m) for t, m in zip(texts, marks, strict=True)]


def transpose(columns: Sequence[Sequence[Cell]]) -> list[list[Cell]]:
    return [list(row) for row in zip(*columns, strict=True)]
