"""The registry of domains, in suite order."""

from __future__ import annotations

from ..family import Domain
from .customer import DOMAIN as CUSTOMER

DOMAINS: list[Domain] = [CUSTOMER]


def domain(name: str) -> Domain:
    for d in DOMAINS:
        if d.name == name:
            return d
    raise KeyError(f"unknown domain {name!r}; known: {[d.name for d in DOMAINS]}")
