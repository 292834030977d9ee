"""The Python API page (docs/python-api.md) runs as written: each of its Python blocks is executed,
its assertions included, and every name it lists is importable from `safeactbench`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import safeactbench

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block-{i}" for i in range(len(BLOCKS))])
def test_each_example_runs(block: str) -> None:
    exec(compile(block, str(DOC), "exec"), {})


def test_every_name_the_table_lists_is_the_package_face_or_a_method_of_it() -> None:
    table = DOC.read_text(encoding="utf-8").split("## ", 1)[0]
    uses = [row.split("|")[2] for row in table.splitlines() if row.startswith("| ") and row.count("|") == 4][1:]
    named = {name for use in uses for name in re.findall(r"`([A-Za-z_]+)(?:\(|`)", use)}
    assert {"load_suite", "Episode", "evaluate", "RunStore", "play_scripted", "append"} <= named
    classes = [getattr(safeactbench, n) for n in safeactbench.__all__ if isinstance(getattr(safeactbench, n), type)]
    unknown = [
        n
        for n in named
        if n not in safeactbench.__all__
        and not any(hasattr(c, n) or n in getattr(c, "model_fields", {}) for c in classes)
    ]
    assert sorted(unknown) == []
