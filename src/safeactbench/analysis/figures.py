"""The report's figures, drawn with matplotlib's Agg canvas (no pyplot, no display, no global state).

Each function takes plain numbers and returns PNG bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .metrics import SUCCESS, ecdf

DPI = 110
PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
MODE_COLOURS = {
    SUCCESS: "#55a868",
    "wrong_decision": "#c44e52",
    "invalid_decision": "#8c564b",
    "acted": "#c44e52",
    "incomplete_investigation": "#dd8452",
    "wrong_outcome": "#8172b3",
    "early_action": "#c44e52",
    "covered_action_failure": "#8172b3",
    "no_action": "#ccb974",
    "gap_only": "#c44e52",
    "partial_only": "#ccb974",
    "gap_and_partial": "#dd8452",
    "other": "#8c8c8c",
}


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _new(width: float, height: float, ncols: int = 1, sharey: bool = False) -> tuple[Figure, list[Any]]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, squeeze=False, sharey=sharey)
    return fig, list(axes[0])


def png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1, metadata={"Software": None})
    return buffer.getvalue()


def _short(label: str, width: int = 22) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def grouped_bars(
    groups: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    title: str,
    ylabel: str = "ECS (%)",
) -> bytes:
    """Bars per group, one per series, values in % with (estimate, low, high) error bars."""
    fig, (ax,) = _new(max(6.0, 0.9 * len(groups) * max(1, len(series)) ** 0.5 + 2), 3.6)
    k = max(1, len(series))
    width = 0.8 / k
    for s, (name, values) in enumerate(series.items()):
        xs = [g + (s - (k - 1) / 2) * width for g in range(len(groups))]
        est = [0.0 if v[0] is None else v[0] for v in values]
        lo = [0.0 if v[0] is None or v[1] is None else max(0.0, v[0] - v[1]) for v in values]
        hi = [0.0 if v[0] is None or v[2] is None else max(0.0, v[2] - v[0]) for v in values]
        ax.bar(xs, est, width=width, color=colour(s), label=_short(name), yerr=[lo, hi], capsize=2, linewidth=0)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylim(0, 105)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncols=min(k, 4), loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    return png(fig)


def failure_modes(
    configs: Sequence[str], shares: Mapping[str, Mapping[str, Mapping[str, float]]], protocols: Sequence[str]
) -> bytes:
    """One panel per protocol; a stacked bar per configuration: success + failure-mode shares (%)."""
    n = max(1, len(protocols))
    fig, axes = _new(max(7.0, 2.4 * n), 3.2 + 0.12 * len(configs), ncols=n, sharey=True)
    for ax, protocol in zip(axes, protocols, strict=False):
        labels: list[str] = []
        for c in configs:
            for label in shares.get(c, {}).get(protocol, {}):
                if label not in labels:
                    labels.append(label)
        bottoms = [0.0] * len(configs)
        for label in labels:
            heights = [100 * shares.get(c, {}).get(protocol, {}).get(label, 0.0) for c in configs]
            ax.bar(
                range(len(configs)),
                heights,
                bottom=bottoms,
                color=MODE_COLOURS.get(label, "#bbbbbb"),
                label=label.replace("_", " "),
                width=0.7,
                edgecolor="white",
                linewidth=0.5,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        ax.set_title(protocol)
        ax.set_xticks(range(len(configs)), [_short(c, 14) for c in configs], rotation=45, ha="right", fontsize=8)
        ax.set_ylim(0, 100)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.35), frameon=False)
    axes[0].set_ylabel("share of cases (%)")
    return png(fig)


def cdf_panels(
    panels: Mapping[str, Mapping[str, Sequence[float]]], xlabel: str, title: str, xlim: tuple[float, float] | None
) -> bytes:
    """One panel per key of `panels`; in each, one empirical CDF per configuration."""
    n = max(1, len(panels))
    fig, axes = _new(max(5.0, 3.0 * n), 3.3, ncols=n, sharey=True)
    names: list[str] = []
    for series in panels.values():
        for name in series:
            if name not in names:
                names.append(name)
    for ax, (panel, series) in zip(axes, panels.items(), strict=False):
        for name, values in series.items():
            if not values:
                continue
            xs, ys = ecdf(values)
            ax.step([xs[0], *xs], [0.0, *ys], where="post", color=colour(names.index(name)), label=_short(name))
        ax.set_title(panel)
        ax.set_xlabel(xlabel)
        if xlim:
            pad = 0.02 * (xlim[1] - xlim[0])
            ax.set_xlim(xlim[0] - pad, xlim[1] + pad)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("cumulative share")
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    return png(fig)


def forest(rows: Sequence[tuple[str, float | None, float | None, float | None]], title: str, xlabel: str) -> bytes:
    """Point estimates with interval bars, one row each (top to bottom), a line at zero."""
    fig, (ax,) = _new(7.0, 0.9 + 0.32 * max(1, len(rows)))
    for i, (_label, est, lo, hi) in enumerate(rows):
        y = len(rows) - 1 - i
        if est is None:
            continue
        if lo is not None and hi is not None:
            ax.plot([lo, hi], [y, y], color="#4c72b0", linewidth=2)
        ax.plot([est], [y], "o", color="#1f3b63")
    ax.axvline(0.0, color="#999999", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def curves(panels: Mapping[str, Mapping[str, Sequence[float]]], xlabel: str, ylabel: str, title: str) -> bytes:
    """One panel per key; in each, one line per series over x = 0, 1, 2, ..."""
    n = max(1, len(panels))
    fig, axes = _new(max(5.0, 3.2 * n), 3.3, ncols=n, sharey=True)
    names: list[str] = []
    for series in panels.values():
        for name in series:
            if name not in names:
                names.append(name)
    for ax, (panel, series) in zip(axes, panels.items(), strict=False):
        for name, ys in series.items():
            if ys:
                ax.step(range(len(ys)), ys, where="post", color=colour(names.index(name)), label=_short(name))
        ax.set_title(_short(panel, 30))
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    return png(fig)
