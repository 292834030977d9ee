"""The published suite: deterministic rebuild, byte-identical package data, clean lint, leak-free views."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from safeactbench.core.model import Protocol
from safeactbench.core.public import public_view
from safeactbench.domains import DOMAINS
from safeactbench.suite.build import COMPOSITION, build_suite
from safeactbench.suite.data import DATA_DIR, CaseFileError, load_suite, read_suite, write_suite
from safeactbench.suite.lint import lint_case


def test_rebuild_is_byte_identical_to_package_data(tmp_path: Path) -> None:
    write_suite(build_suite(DOMAINS), tmp_path)
    for name in ("cases.jsonl", "tools.json", "policies.json", "manifest.json"):
        assert (tmp_path / name).read_bytes() == (DATA_DIR / name).read_bytes(), (
            f"{name} differs from the build: run `safeactbench suite build` and bump SUITE_VERSION"
        )


def test_build_is_deterministic() -> None:
    """Across processes the byte-identical rebuild above proves it; within one process, building
    other domains in between must not move a domain's cases (no state carried between builds)."""
    smallest = min(DOMAINS, key=lambda d: sum(COMPOSITION[d.name].values()))
    first = [c.model_dump_json() for c in build_suite([smallest])]
    build_suite([d for d in DOMAINS if d is not smallest][:1])
    second = [c.model_dump_json() for c in build_suite([smallest])]
    assert first == second


def test_composition_of_registered_domains() -> None:
    suite = load_suite()
    for domain in DOMAINS:
        for protocol, expected in COMPOSITION[domain.name].items():
            got = sum(c.domain == domain.name and c.protocol == protocol for c in suite)
            assert got == expected, (domain.name, protocol)


def test_every_case_lints_clean() -> None:
    problems = [f"{c.id}: {p}" for c in load_suite() for p in lint_case(c)]
    assert problems == []


PUBLIC_KEYS = {"task", "context", "tools", "now", "budget", "static", "candidate", "evidence"}
HIDDEN_KEYS = {
    "requirements",
    "expected_actions",
    "stop",
    "legacy",
    "decisive",
    "protocol",
    "reference",
    "world_seed",
    "family",
    "records",
    "notes",
    "distractors",
    "events",
    "grounds",
}


def keys_of(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def test_public_view_hides_gold_and_protocol() -> None:
    for case in load_suite():
        view = public_view(case).model_dump(mode="json")
        assert set(view) == PUBLIC_KEYS
        dumped = json.dumps(view)
        assert case.id not in dumped and case.world_seed not in dumped
        assert not keys_of([view["tools"], view["context"], view["candidate"]]) & HIDDEN_KEYS, case.id
        if case.protocol == Protocol.LEGACY:
            world = {r.ref: r for r in case.records}
            assert all(world[f"{r['type']}:{r['id']}"].fields == r["fields"] for r in view["evidence"])
            assert set(view["candidate"]) == {"tool", "arguments"}
        else:
            assert view["candidate"] is None and view["evidence"] is None


def test_every_case_of_a_domain_shows_the_full_tool_list() -> None:
    suite = load_suite()
    for domain in DOMAINS:
        full = sorted(t.name for t in domain.case_tools)
        for case in suite:
            if case.domain == domain.name and case.protocol != Protocol.LEGACY:
                names = sorted(t["name"] for t in public_view(case).tools)
                assert names == sorted([*full, "submit"]), case.id


def test_malformed_case_file_names_file_line_and_field(tmp_path: Path) -> None:
    write_suite(list(load_suite())[:3], tmp_path)
    lines = (tmp_path / "cases.jsonl").read_text().splitlines()
    broken = json.loads(lines[1])
    broken["budget"] = "many"
    lines[1] = json.dumps(broken)
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(CaseFileError, match=r"cases\.jsonl:2: field budget"):
        read_suite(tmp_path)
    lines[1] = "{not json"
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(CaseFileError, match=r"cases\.jsonl:2: not valid JSON"):
        read_suite(tmp_path)
