"""Episode-level metrics (SPEC §6): ECS overall, per protocol, per domain, and their macro means."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..model import Protocol
from ..store import EpisodeRecord

PROTOCOL_NAMES = tuple(p.value for p in Protocol)
DOMAIN_ORDER = ("customer", "engineering", "legal_finance", "research", "smart_home", "healthcare")


@dataclass(frozen=True)
class Rate:
    successes: int
    n: int

    @property
    def value(self) -> float | None:
        return self.successes / self.n if self.n else None


def scored(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """Completed episodes with a verdict (missing episodes are coverage, not failures)."""
    return [r for r in records if r.status == "completed" and r.verdict is not None]


def ecs_by(records: Iterable[EpisodeRecord], key: Callable[[EpisodeRecord], str]) -> dict[str, Rate]:
    groups: dict[str, list[int]] = defaultdict(list)
    for r in scored(records):
        assert r.verdict is not None
        groups[key(r)].append(r.verdict.score)
    return {k: Rate(sum(v), len(v)) for k, v in groups.items()}


def ecs(records: Iterable[EpisodeRecord]) -> Rate:
    s = [r.verdict.score for r in scored(records) if r.verdict is not None]
    return Rate(sum(s), len(s))


def macro(rates: dict[str, Rate], keys: Iterable[str]) -> float | None:
    values = [rates[k].value for k in keys if k in rates and rates[k].value is not None]
    return sum(v for v in values if v is not None) / len(values) if values else None


def summary(records: list[EpisodeRecord]) -> dict[str, object]:
    by_protocol = ecs_by(records, lambda r: str(r.protocol))
    by_domain = ecs_by(records, lambda r: r.domain)
    return {
        "ecs": ecs(records),
        "by_protocol": by_protocol,
        "by_domain": by_domain,
        "protocol_macro": macro(by_protocol, PROTOCOL_NAMES),
        "domain_macro": macro(by_domain, DOMAIN_ORDER),
    }
