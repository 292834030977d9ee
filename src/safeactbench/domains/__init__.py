"""The six packaged domains, each a package of a tool table (`tools`), written policies
(`policies`), shared scenario pieces (`common`) and one module per scenario family; `DOMAINS` is
their registry, in suite order. Data and short scenario scripts, written against `authoring`.

May import `authoring` and `core` only.
"""

from __future__ import annotations

from ..authoring.family import Domain
from .customer import DOMAIN as CUSTOMER
from .engineering import DOMAIN as ENGINEERING
from .healthcare import DOMAIN as HEALTHCARE
from .legal_finance import DOMAIN as LEGAL_FINANCE
from .research import DOMAIN as RESEARCH
from .smart_home import DOMAIN as SMART_HOME

DOMAINS: list[Domain] = [CUSTOMER, ENGINEERING, LEGAL_FINANCE, RESEARCH, SMART_HOME, HEALTHCARE]


def domain(name: str) -> Domain:
    for d in DOMAINS:
        if d.name == name:
            return d
    raise KeyError(f"unknown domain {name!r}; known: {[d.name for d in DOMAINS]}")
