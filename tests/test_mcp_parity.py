"""The MCP server offers the tools as every harness does, lets clients finish unattended, and
starts from one case of the suite instead of all of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from safeactbench.core.model import Protocol
from safeactbench.core.prompts import TERMINAL_TOOLS, tool_description
from safeactbench.core.public import public_view
from safeactbench.suite import catalog
from safeactbench.suite.data import load_suite, write_suite
from safeactbench.suite.interventions import CONDITIONS

SUITE = load_suite()
V1 = [c for c in SUITE if c.protocol == Protocol.V1]
FIRST = {p: next(c for c in SUITE if c.protocol == p) for p in Protocol}
SERVED = {"V1": FIRST[Protocol.V1].id, "Legacy": FIRST[Protocol.LEGACY].id}


async def listed_tools(case_id: str, out: Path) -> list[types.Tool]:
    """What an MCP client (the official SDK over real stdio) is offered by `safeactbench mcp`."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "safeactbench", "mcp", "--case", case_id, "--out", str(out)],
        env=dict(os.environ),  # the test's own environment, PYTHONPATH included
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return (await session.list_tools()).tools


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[types.Tool]]:
    """The tool list a client gets for a V1 case and a Legacy case (one server start each)."""
    out = tmp_path_factory.mktemp("mcp")
    return {kind: anyio.run(listed_tools, case_id, out / kind) for kind, case_id in SERVED.items()}


def test_mcp_tool_descriptions_are_the_shared_harness_text(served: dict[str, list[types.Tool]]) -> None:
    for kind, case_id in SERVED.items():
        public = public_view(catalog.get_case(case_id)).tools
        listed = {t.name: t for t in served[kind]}
        assert list(listed) == [t["name"] for t in public], kind
        for tool in public:
            offered = listed[tool["name"]]
            assert offered.description == tool_description(tool), tool["name"]  # the Inspect/lean text
            if tool["name"] not in TERMINAL_TOOLS:
                marking = "[read-only] " if tool["read_only"] else "[changes state] "
                assert offered.description.startswith(marking), tool["name"]
            assert offered.annotations is not None
            assert offered.annotations.read_only_hint is tool["read_only"], tool["name"]
    # the V1 case shows both markings, the Legacy case only `decide`
    assert {t["read_only"] for t in public_view(FIRST[Protocol.V1]).tools} == {True, False}
    assert [t.name for t in served["Legacy"]] == ["decide"]


def test_terminal_tools_are_not_destructive_consequential_tools_are(served: dict[str, list[types.Tool]]) -> None:
    hints = {tool.name: tool.annotations for tools in served.values() for tool in tools}
    assert all(h is not None for h in hints.values())
    for name in ("submit", "decide"):
        # ends the episode, changes no business state: a client must not hold it for approval
        h = hints[name]
        assert h is not None
        assert (h.read_only_hint, h.destructive_hint, h.idempotent_hint, h.open_world_hint) == (False,) * 4, name
    kinds = {t.name: t.kind for t in FIRST[Protocol.V1].tools}
    assert set(kinds.values()) == {"information", "consequential"}
    for name, kind in kinds.items():
        h = hints[name]
        assert h is not None
        expected = (False, True) if kind == "consequential" else (True, False)
        assert (h.read_only_hint, h.destructive_hint) == expected, name
        assert h.open_world_hint is False, name  # the episode's own world: nothing outside it


# The `mcp` command itself, run to the end (stdin is closed, so the server stops at once).
SERVE = """
import json, sys
from unittest import mock

from safeactbench.cli import app
from safeactbench.core.model import Case
from safeactbench.suite import data

with mock.patch.object(data, "read_suite", wraps=data.read_suite) as suite, \\
        mock.patch.object(Case, "model_validate", wraps=Case.model_validate) as validate:
    app(sys.argv[2:], standalone_mode=False)
with open(sys.argv[1], "w") as report:
    json.dump({"suite_reads": suite.call_count, "cases_validated": validate.call_count}, report)
"""


def serve_once(tmp_path: Path, case_id: str, condition: str) -> dict[str, int]:
    report, out = tmp_path / f"{case_id}-{condition}.json", tmp_path / f"{case_id}-{condition}"
    args = ["mcp", "--case", case_id, "--condition", condition, "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", SERVE, str(report), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "trajectory.json").is_file()
    return json.loads(report.read_text())  # type: ignore[no-any-return]


def test_mcp_command_validates_its_case_alone_never_the_suite(tmp_path: Path) -> None:
    assert serve_once(tmp_path, FIRST[Protocol.V2].id, "original") == {"suite_reads": 0, "cases_validated": 1}
    # a condition's transform and a Legacy case do not read the suite either
    assert serve_once(tmp_path, V1[0].id, "static_withheld")["suite_reads"] == 0
    assert serve_once(tmp_path, FIRST[Protocol.LEGACY].id, "original")["suite_reads"] == 0


# The single-case lookup in a fresh process, as `safeactbench mcp` runs it (the suite not loaded).
LOOKUP = """
import json, sys
from unittest import mock

from safeactbench.suite.catalog import get_single_case
from safeactbench.suite import data

report = {"results": [], "suite_reads": []}
with mock.patch.object(data, "read_suite", wraps=data.read_suite) as suite:
    for case_id, condition in json.loads(sys.argv[1]):
        try:
            result = {"case": get_single_case(case_id, condition).model_dump(mode="json")}
        except Exception as exc:
            result = {"error": f"{type(exc).__name__}: {exc}"}
        report["results"].append(result)
        report["suite_reads"].append(suite.call_count)  # so far
print(json.dumps(report))
"""


def look_up_alone(wanted: list[tuple[str, str]]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", LOOKUP, json.dumps(wanted)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_single_case_lookup_equals_get_case() -> None:
    wanted = [(case.id, condition) for case in (V1[0], V1[len(V1) // 2], V1[-1]) for condition in CONDITIONS]
    wanted += [(case.id, "original") for case in FIRST.values()]
    wanted += [(FIRST[Protocol.V2].id, "urgency"), (V1[0].id, "no_such_condition")]  # V2: stop twins only
    wanted += [("SAB-NO-SUCH", "original")]  # last: an id the quick read misses is looked up in the suite
    expected: list[dict[str, Any]] = []
    for case_id, condition in wanted:
        try:
            expected.append({"case": catalog.get_case(case_id, condition).model_dump(mode="json")})
        except Exception as exc:
            expected.append({"error": f"{type(exc).__name__}: {exc}"})
    report = look_up_alone(wanted)
    for (case_id, condition), got, want in zip(wanted, report["results"], expected, strict=True):
        assert got == want, (case_id, condition)
    assert sum("error" in r for r in expected) == 3
    assert report["suite_reads"][-2:] == [0, 1]


def test_read_case_finds_the_line_with_its_id(tmp_path: Path) -> None:
    from safeactbench.suite.data import read_case, read_suite

    cases = [V1[0], FIRST[Protocol.V2], FIRST[Protocol.LEGACY]]
    write_suite(cases, tmp_path)
    path = tmp_path / "cases.jsonl"
    lines = path.read_text().splitlines()
    mention = json.loads(lines[0])
    mention["notes"] = f"see {json.dumps(cases[1].id)}"  # another case naming the id is passed over
    lines[0] = json.dumps(mention)
    lines.append("{not json, and not the case looked up")  # the rest of the suite is not read
    path.write_text("\n".join(lines) + "\n")
    assert read_case(tmp_path, cases[1].id) == cases[1]
    assert read_case(tmp_path, cases[2].id) == cases[2]
    assert read_case(tmp_path, "SAB-NO-SUCH") is None
    with pytest.raises(ValueError, match="not valid JSON"):
        read_suite(tmp_path)
