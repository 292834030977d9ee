"""The report's figures, drawn with matplotlib's Agg canvas (no pyplot, no display, no global state).

Each figure function takes plain numbers and returns PNG bytes; `function.draw(...)` returns the
matplotlib Figure instead (what the tests inspect). A configuration keeps one colour in every
figure (`colours`, from `configuration_colours`), and labels are wrapped, never cut.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, ParamSpec

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .metrics import SUCCESS

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


P = ParamSpec("P")


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def configuration_colours(labels: Sequence[str]) -> dict[str, str]:
    """One colour per configuration, in the order given, for every figure of a report (ten
    distinct colours; past ten they repeat)."""
    return {label: colour(i) for i, label in enumerate(labels)}


def _colour_of(name: str, colours: Mapping[str, str] | None, order: Sequence[str]) -> str:
    if colours is not None and name in colours:
        return colours[name]
    return colour(list(order).index(name))


def wrap(label: str, width: int = 28) -> str:
    """The whole label on lines of at most `width` characters (long names broken, nothing cut)."""
    return "\n".join(textwrap.wrap(label, width, break_long_words=True, break_on_hyphens=False)) or label


class rendered(Generic[P]):  # lower case: used as a decorator
    """A figure function: calling it returns PNG bytes, `.draw` the matplotlib Figure."""

    def __init__(self, draw: Callable[P, Figure]) -> None:
        self.draw = draw
        self.__doc__ = draw.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> bytes:
        return png(self.draw(*args, **kwargs))


def _legend_below(fig: Figure, axes: Sequence[Any], ncols: int = 3) -> None:
    """One legend for the whole figure, under it: every series once, labels wrapped."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", fontsize=7,
                   ncols=max(1, min(ncols, len(handles))), frameon=False)  # fmt: skip


def _new(width: float, height: float, ncols: int = 1, sharey: bool = False) -> tuple[Figure, list[Any]]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, squeeze=False, sharey=sharey)
    return fig, list(axes[0])


def png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1, metadata={"Software": None})
    return buffer.getvalue()


def _linear_then_log(x: Any) -> Any:
    x = np.asarray(x, dtype=float)
    return np.where(x <= 1, x, 1 + np.log2(np.maximum(x, 1)))


def _linear_then_log_inverse(t: Any) -> Any:
    t = np.asarray(t, dtype=float)
    return np.where(t <= 1, t, np.exp2(np.minimum(t, 60) - 1))


def _names(panels: Mapping[str, Mapping[str, Any]]) -> list[str]:
    names: list[str] = []
    for series in panels.values():
        for name in series:
            if name not in names:
                names.append(name)
    return names


@rendered
def grouped_bars(
    groups: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    title: str,
    ylabel: str = "ECS (%)",
    colours: Mapping[str, str] | None = None,
    percent: bool = True,
) -> Figure:
    """Bars per group, one per series, with (estimate, low, high) error bars; values in % (0-100
    axis) unless `percent` is False."""
    fig, (ax,) = _new(max(6.0, 0.9 * len(groups) * max(1, len(series)) ** 0.5 + 2), 3.6)
    k = max(1, len(series))
    width = 0.8 / k
    for s, (name, values) in enumerate(series.items()):
        xs = [g + (s - (k - 1) / 2) * width for g in range(len(groups))]
        est = [0.0 if v[0] is None else v[0] for v in values]
        lo = [0.0 if v[0] is None or v[1] is None else max(0.0, v[0] - v[1]) for v in values]
        hi = [0.0 if v[0] is None or v[2] is None else max(0.0, v[2] - v[0]) for v in values]
        tint = _colour_of(name, colours, list(series))
        ax.bar(xs, est, width=width, color=tint, label=wrap(name), yerr=[lo, hi], capsize=2, linewidth=0)
    ax.set_xticks(range(len(groups)), groups)
    if percent:
        ax.set_ylim(0, 105)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    _legend_below(fig, [ax])
    return fig


@rendered
def failure_modes(
    configs: Sequence[str], shares: Mapping[str, Mapping[str, Mapping[str, float]]], protocols: Sequence[str]
) -> Figure:
    """One panel per protocol; a horizontal stacked bar per configuration (top to bottom, full labels
    on the left): success + failure-mode shares (%)."""
    n = max(1, len(protocols))
    fig, axes = _new(max(7.0, 2.2 * n + 2.0), 1.6 + 0.42 * len(configs), ncols=n, sharey=True)
    ys = list(range(len(configs)))[::-1]
    for ax, protocol in zip(axes, protocols, strict=False):
        labels: list[str] = []
        for c in configs:
            for label in shares.get(c, {}).get(protocol, {}):
                if label not in labels:
                    labels.append(label)
        lefts = [0.0] * len(configs)
        for label in labels:
            widths = [100 * shares.get(c, {}).get(protocol, {}).get(label, 0.0) for c in configs]
            ax.barh(ys, widths, left=lefts, color=MODE_COLOURS.get(label, "#bbbbbb"), label=label.replace("_", " "),
                    height=0.7, edgecolor="white", linewidth=0.5)  # fmt: skip
            lefts = [b + w for b, w in zip(lefts, widths, strict=True)]
        ax.set_title(protocol)
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of cases (%)", fontsize=8)
    axes[0].set_yticks(ys, [wrap(c, 30) for c in configs], fontsize=8)
    _legend_below(fig, axes, ncols=4)
    return fig


@rendered
def forest(rows: Sequence[tuple[str, float | None, float | None, float | None]], title: str, xlabel: str) -> Figure:
    """Point estimates with interval bars, one row each (top to bottom), a line at zero."""
    labels = [wrap(r[0], 44) for r in rows]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig, (ax,) = _new(7.0, 0.9 + 0.2 * max(1, lines) + 0.12 * len(rows))
    for i, (_label, est, lo, hi) in enumerate(rows):
        y = len(rows) - 1 - i
        if est is None:
            continue
        if lo is not None and hi is not None:
            ax.plot([lo, hi], [y, y], color="#4c72b0", linewidth=2)
        ax.plot([est], [y], "o", color="#1f3b63")
    ax.axvline(0.0, color="#999999", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(rows)), labels[::-1], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return fig


@rendered
def curves(
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    xlabel: str,
    ylabel: str,
    title: str,
    colours: Mapping[str, str] | None = None,
    bands: Mapping[str, Mapping[str, tuple[Sequence[float], Sequence[float]]]] | None = None,
    xs: Sequence[float] | None = None,
    linear_then_log: bool = False,
) -> Figure:
    """One panel per key; in each, one step line per series over `xs` (default 0, 1, 2, ...), with
    an optional shaded band (low, high) per series. `linear_then_log`: the x axis is linear up to 1
    and logarithmic beyond (STUDY F-effort)."""
    n = max(1, len(panels))
    fig, axes = _new(max(5.0, 3.2 * n), 3.3, ncols=n, sharey=True)
    names = _names(panels)
    for ax, (panel, series) in zip(axes, panels.items(), strict=False):
        for name, ys in series.items():
            if ys:
                x = list(xs) if xs is not None else list(range(len(ys)))
                tint = _colour_of(name, colours, names)
                ax.step(x, ys, where="post", color=tint, label=wrap(name))
                low, high = (bands or {}).get(panel, {}).get(name, ((), ()))
                if len(low) == len(ys):
                    ax.fill_between(x, low, high, step="post", color=tint, alpha=0.15, linewidth=0)
        ax.set_title(wrap(panel, 30), fontsize=9)
        ax.set_xlabel(xlabel)
        if linear_then_log:
            ax.set_xscale("function", functions=(_linear_then_log, _linear_then_log_inverse))
            ticks = [t for t in (0, 0.5, 1, 2, 4, 8, 16) if xs is None or t <= max(xs)]
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        elif xs is None:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    _legend_below(fig, axes)
    fig.suptitle(title)
    return fig
