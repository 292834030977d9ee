"""Honest intervals at the edges (issue 16): a nominal-95 % interval on an ECS-like rate covers the
true rate at least 90 % of the time, also when the rate is near 0 or 1 and the percentile bootstrap
alone would collapse to zero width."""

from __future__ import annotations

import numpy as np
import pytest

from safeactbench.analysis.stats import Bootstrap, mean_interval, wilson


@pytest.mark.parametrize("n", [86, 570])
@pytest.mark.parametrize("p", [0.01, 0.5, 0.99])
def test_coverage_by_simulation(p: float, n: int) -> None:
    rng = np.random.default_rng(7)
    units = [f"c{i}" for i in range(n)]
    boot = Bootstrap(units, resamples=1000, seed=11)
    datasets = 300
    outcomes = (rng.random((datasets, n)) < p).astype(float)
    intervals = boot.intervals(outcomes, rates=True)
    covered = sum(iv.low is not None and iv.high is not None and iv.low <= p <= iv.high for iv in intervals)
    assert covered / datasets >= 0.90, (p, n, covered / datasets)


def test_an_all_zero_rate_has_a_wilson_interval_not_a_point() -> None:
    interval = mean_interval({f"c{i}": 0.0 for i in range(86)})
    assert interval.estimate == 0.0 and interval.low == 0.0
    assert interval.high == pytest.approx(wilson(0, 86)[1]) and 0.04 < interval.high < 0.045
    full = mean_interval({f"c{i}": 1.0 for i in range(86)})
    assert full.high == 1.0 and 0.955 < full.low < 0.96  # type: ignore[operator]


def test_wilson_matches_the_textbook_formula() -> None:
    low, high = wilson(10, 100)
    assert low == pytest.approx(0.0552, abs=1e-4) and high == pytest.approx(0.1744, abs=1e-4)
