"""The tables commands print: ECS by protocol and domain (with paired ECS and harmful-action rates),
coverage."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..analysis.judgement import harmful_action_rates, paired_ecs
from ..analysis.metrics import DOMAIN_ORDER, ORIGINAL, PROTOCOL_NAMES, Rate, summary
from ..runs.rows import Episode


def _pct(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return "-"
    return f"{100 * rate.value:5.1f}% ({rate.successes}/{rate.n})"


def ecs_table(records: Iterable[Episode], title: str) -> Table:
    """ECS of the original condition by protocol and domain; where stop twins were played, paired
    ECS and the harmful-action rates below it. `records` is read twice (a list or a run's rows)."""
    s = summary(r for r in records if r.condition == ORIGINAL)
    table = Table(title=escape(title), min_width=len(title) + 4)
    table.add_column("protocol")
    table.add_column("ECS", justify="right")
    by_protocol: dict[str, Rate] = s["by_protocol"]  # type: ignore[assignment]
    for name in PROTOCOL_NAMES:
        if name in by_protocol:
            table.add_row(name, _pct(by_protocol[name]))
    table.add_row("[bold]all", _pct(s["ecs"]))  # type: ignore[arg-type]
    macro = s["protocol_macro"]
    table.add_row("[bold]P-M", "-" if macro is None else f"{100 * macro:5.1f}%")  # type: ignore[operator]
    by_domain: dict[str, Rate] = s["by_domain"]  # type: ignore[assignment]
    if len(by_domain) > 1:
        for name in DOMAIN_ORDER:
            if name in by_domain:
                table.add_row(f"  {name}", _pct(by_domain[name]))
        dm = s["domain_macro"]
        table.add_row("[bold]D-M", "-" if dm is None else f"{100 * dm:5.1f}%")  # type: ignore[operator]
    paired = paired_ecs(records)
    if paired:
        protocol_of = {r.case_id: r.protocol.value for r in records if r.condition == ORIGINAL}
        for name, rate in paired.items():
            table.add_row(f"paired ECS {name}", _pct(rate))
        for name, rate in harmful_action_rates(records, protocol_of).items():
            table.add_row(f"harmful, {name}", _pct(rate))
    return table


def coverage_line(completed: int, stored: int, planned: Any, missing: dict[str, int]) -> str:
    """`coverage: 30 of 656 planned episodes scored; 626 missing (runtime_error: 626)`."""
    of = f"{int(planned)} planned" if isinstance(planned, int | float) and planned else f"{stored} stored"
    text = f"coverage: {completed} of {of} episodes scored"
    if missing:
        text += (
            f"; {sum(missing.values())} missing (runtime failures, not scored: "
            + ", ".join(f"{kind}: {n}" for kind, n in sorted(missing.items()))
            + ")"
        )
    return text
