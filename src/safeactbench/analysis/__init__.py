"""Metrics, statistics, figures and reports over run directories (SPEC §6).

`command.report(run_dirs, out)` writes the whole study report (the `safeactbench report`
command); the modules underneath are usable on their own: `metrics` (episode-level metrics),
`stats` (vectorised case bootstrap, paired comparisons, static-vs-interactive gap), `runs` (run
directories and configurations), `figures`, `report` (`build_report`: the sections, one module per
group under `sections/`, assembled into the `structure` types with `formatting`) and `rendering`
(Markdown, HTML, `write_report`). Names are imported lazily, so `import safeactbench.analysis.metrics`
(the CLI's result table) does not load numpy, matplotlib or jinja2. (`report` builds the report; the
entry point is `command.report`.)

May import `runs`, `suite` and `core`; never a harness, the audit, the importers or the command line.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runs import Configuration, ReportError, Run, group_configurations, load_run, load_runs
    from .stats import Bootstrap, Interval, StaticGap, paired_delta, static_gap

__all__ = [
    "Bootstrap",
    "Configuration",
    "Interval",
    "ReportError",
    "Run",
    "StaticGap",
    "group_configurations",
    "load_run",
    "load_runs",
    "paired_delta",
    "static_gap",
]

_HOME = {
    name: ".runs" for name in ("Configuration", "ReportError", "Run", "group_configurations", "load_run", "load_runs")
}
_HOME |= {name: ".stats" for name in ("Bootstrap", "Interval", "StaticGap", "paired_delta", "static_gap")}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)
