"""Shared fixtures. The case builders and trajectory helpers live in `tests/cases.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import cases
from safeactbench.core.model import Case


@pytest.fixture
def v1() -> Case:
    return cases.refund_v1()


@pytest.fixture
def v2() -> Case:
    return cases.refund_v2()


@pytest.fixture
def v3() -> Case:
    return cases.refund_v3()


# Tests that drive real CLIs or rebuild the whole suite take tens of seconds each: started first, the
# two workers of `pytest -n 2` share out the short ones around them instead of finishing on one of
# them alone (longest first; the order of the rest is kept).
LONGEST_FIRST = ("test_family_cli.py", "test_run_chaos.py", "test_suite_data.py", "test_command_harness.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)
