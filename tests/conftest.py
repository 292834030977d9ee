"""Shared fixtures. The case builders and trajectory helpers live in `tests/cases.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import cases
from safeactbench.model import Case


@pytest.fixture
def v1() -> Case:
    return cases.refund_v1()


@pytest.fixture
def v2() -> Case:
    return cases.refund_v2()


@pytest.fixture
def v3() -> Case:
    return cases.refund_v3()
