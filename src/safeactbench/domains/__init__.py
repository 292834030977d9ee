"""The registry of domains, in suite order."""

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
