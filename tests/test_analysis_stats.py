"""The case bootstrap against known answers: constructed data with a known Δ, exact seeded
reproduction, interval width shrinking like 1/sqrt(n), the vectorised means equal to a plain loop,
and the static-vs-interactive gap on constructed episodes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safeactbench.analysis.metrics import pass_hat_k
from safeactbench.analysis.stats import (
    EMPTY,
    Bootstrap,
    mean_interval,
    paired_delta,
    percentile_bounds,
    resample_counts,
    resample_indices,
    resampled_means,
    static_gap,
    static_pairing,
)
from safeactbench.core.model import Protocol
from safeactbench.core.verdict import Diagnostics, OutcomeCode, Verdict
from safeactbench.runs.store import EpisodeRecord


def cases(n: int) -> list[str]:
    return [f"C{i:04d}" for i in range(n)]


def alternating(n: int, successes: int) -> dict[str, float]:
    """`successes` ones spread evenly over n cases."""
    ids = cases(n)
    ones = {round(i * n / successes) for i in range(successes)} if successes else set()
    return {c: float(i in ones) for i, c in enumerate(ids)}


# ---------------------------------------------------------------------------- index matrix


def test_index_matrix_shape_range_and_counts() -> None:
    idx = resample_indices(7, resamples=500, seed=1)
    assert idx.shape == (500, 7)
    assert idx.min() >= 0 and idx.max() <= 6
    counts = resample_counts(idx)
    assert counts.shape == (500, 7)
    assert np.all(counts.sum(axis=1) == 7)
    assert counts[3, idx[3, 0]] >= 1


def test_seeded_bootstrap_reproduces_exactly() -> None:
    a, b = alternating(120, 80), alternating(120, 50)
    first = paired_delta(a, b, resamples=2000, seed=7)
    again = paired_delta(a, b, resamples=2000, seed=7)
    assert first == again
    assert np.array_equal(resample_indices(50, 300, seed=7), resample_indices(50, 300, seed=7))
    assert not np.array_equal(resample_indices(50, 300, seed=7), resample_indices(50, 300, seed=8))
    assert paired_delta(a, b, resamples=2000, seed=8).estimate == first.estimate  # seed-free point estimate
    boot7, boot8 = Bootstrap(sorted(a), 2000, seed=7), Bootstrap(sorted(a), 2000, seed=8)
    values = boot7.matrix([a])
    assert np.array_equal(boot7.samples(values), Bootstrap(sorted(a), 2000, seed=7).samples(values))
    assert not np.array_equal(boot7.samples(values), boot8.samples(values))


def test_vectorised_means_equal_a_plain_loop() -> None:
    rng = np.random.default_rng(3)
    values = (rng.random((4, 30)) < 0.6).astype(float)
    values[1, [2, 5, 11]] = np.nan  # cases a row does not have
    idx = resample_indices(30, resamples=200, seed=11)
    fast = resampled_means(values, resample_counts(idx))
    slow = np.array([[np.nanmean(row[idx[b]]) for b in range(200)] for row in values])
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- known answers


def test_known_delta_is_recovered_with_an_interval_around_it() -> None:
    a, b = alternating(200, 160), alternating(200, 100)  # 80 % vs 50 %: Δ = +30 points
    delta = paired_delta(a, b)
    assert delta.n == 200
    assert delta.estimate == pytest.approx(30.0)
    assert delta.low is not None and delta.high is not None
    assert delta.low < 30.0 < delta.high
    assert delta.low > 0  # clearly different
    # reversed pair: the same interval mirrored
    back = paired_delta(b, a)
    assert back.estimate == pytest.approx(-30.0)
    assert back.low == pytest.approx(-delta.high) and back.high == pytest.approx(-delta.low)


def test_identical_runs_have_zero_delta_and_zero_width() -> None:
    a = alternating(100, 37)
    delta = paired_delta(a, dict(a))
    assert (delta.estimate, delta.low, delta.high) == (0.0, 0.0, 0.0)


def test_paired_delta_uses_common_cases_only() -> None:
    a = {"x": 1.0, "y": 1.0, "z": 0.0, "only_a": 1.0}
    b = {"x": 0.0, "y": 1.0, "z": 0.0, "only_b": 0.0}
    delta = paired_delta(a, b, resamples=1000)
    assert delta.n == 3
    assert delta.estimate == pytest.approx(100 / 3)
    assert paired_delta({"p": 1.0}, {"q": 1.0}) == EMPTY


def test_interval_of_a_proportion_matches_the_normal_approximation() -> None:
    n, p = 400, 0.5
    iv = mean_interval(alternating(n, int(n * p)))
    expected_half = 1.96 * math.sqrt(p * (1 - p) / n)
    assert iv.estimate == pytest.approx(p)
    assert iv.width is not None
    assert iv.width / 2 == pytest.approx(expected_half, rel=0.1)


def test_interval_width_shrinks_like_one_over_sqrt_n() -> None:
    widths = {}
    for n in (100, 400, 1600):
        iv = mean_interval(alternating(n, int(0.3 * n)), resamples=10_000)
        assert iv.width is not None
        widths[n] = iv.width
    assert widths[100] / widths[400] == pytest.approx(2.0, rel=0.15)
    assert widths[100] / widths[1600] == pytest.approx(4.0, rel=0.15)


def test_constant_data_has_a_degenerate_interval() -> None:
    low, high = percentile_bounds(np.ones((2, 100)))
    assert list(low) == [1.0, 1.0] and list(high) == [1.0, 1.0]
    low, high = percentile_bounds(np.full((1, 10), np.nan))
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_one_index_matrix_serves_every_configuration() -> None:
    units = cases(50)
    boot = Bootstrap(units, resamples=3000, seed=5)
    rows = [alternating(50, k) for k in (10, 25, 40)]
    together = boot.means(rows)
    alone = [Bootstrap(units, resamples=3000, seed=5).means([row])[0] for row in rows]
    assert together == alone
    assert [iv.estimate for iv in together] == pytest.approx([0.2, 0.5, 0.8])
    # a row missing cases is the mean over the cases it has
    partial = boot.means([{u: 1.0 for u in units[:10]} | {u: 0.0 for u in units[10:20]}])[0]
    assert partial.n == 20 and partial.estimate == pytest.approx(0.5)


def test_pass_hat_k_known_values() -> None:
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(2, 3, 1) == pytest.approx(2 / 3)
    assert pass_hat_k(2, 3, 2) == pytest.approx(1 / 3)
    assert pass_hat_k(2, 3, 3) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 3)


# ---------------------------------------------------------------------------- static vs interactive


def episode(case_id: str, protocol: str, score: int, condition: str, repetition: int = 0) -> EpisodeRecord:
    outcome = OutcomeCode.CASE_SUCCESS if score else OutcomeCode.WRONG_DECISION
    return EpisodeRecord(
        case_id=case_id,
        protocol=Protocol(protocol),
        domain="customer",
        family="f",
        agent="m",
        condition=condition,
        repetition=repetition,
        verdict=Verdict(
            case_id=case_id,
            protocol=Protocol(protocol),
            score=score,
            outcome=outcome,
            failure_mode=None if score else "other",
            findings=[],
            diagnostics=Diagnostics(),
        ),
    )


def test_static_gap_on_constructed_data() -> None:
    ids = [f"SAB-V1-{i:03d}" for i in range(1, 41)]
    static = [episode(c, "Legacy", int(i < 30), "static") for i, c in enumerate(ids)]  # 75 %
    interactive = [episode(c, "V1", int(i < 15), "original") for i, c in enumerate(ids)]  # 37.5 %
    interactive.append(episode("SAB-V1-999", "V1", 1, "original"))  # unpaired: ignored
    pairing = static_pairing(static + interactive, {"static": "original"})
    assert len(pairing) == 40
    assert pairing[0] == (("SAB-V1-001", "static"), ("SAB-V1-001", "original"))
    gap = static_gap(static, interactive, pairing)
    assert gap.pairs == 40
    assert gap.static_accuracy == pytest.approx(0.75)
    assert gap.interactive_ecs == pytest.approx(0.375)
    assert gap.gap.estimate == pytest.approx(37.5)
    assert gap.gap.low is not None and gap.gap.high is not None
    assert 0 < gap.gap.low < 37.5 < gap.gap.high
    assert static_gap(static, interactive, dict(pairing), seed=1).gap.estimate == pytest.approx(37.5)
    # the same seed gives the same interval
    assert static_gap(static, interactive, pairing) == gap


def test_static_gap_averages_repetitions_and_drops_incomplete_pairs() -> None:
    static = [episode("A", "Legacy", 1, "static"), episode("B", "Legacy", 0, "static")]
    interactive = [
        episode("A", "V1", 1, "original", 0),
        episode("A", "V1", 0, "original", 1),
        episode("C", "V1", 0, "original"),
    ]
    pairing = [(("A", "static"), ("A", "original")), (("B", "static"), ("B", "original"))]
    gap = static_gap(static, interactive, pairing, resamples=500)
    assert gap.pairs == 1  # B has no interactive episode
    assert gap.static_accuracy == 1.0 and gap.interactive_ecs == 0.5
    assert gap.gap.estimate == pytest.approx(50.0)
    none = static_gap(static, interactive, [])
    assert none.pairs == 0 and none.gap == EMPTY
