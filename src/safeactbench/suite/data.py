"""The published suite: versioned JSONL package data with a manifest of checksums.

Layout of a suite directory: `cases.jsonl` (one case per line, without its domain's tools),
`tools.json` (each domain's tool list, stored once) and `manifest.json` (suite version, counts,
per-case sha256 over the self-contained case). Published cases are never edited silently: any
change to their bytes must come with a new SUITE_VERSION and a line in docs/CHANGELOG-suite.md.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..model import Case, ToolSpec

SUITE_VERSION = "0.2.0"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
MAX_CASE_BYTES = 2_000_000


class CaseFileError(ValueError):
    """A case file that cannot be loaded; the message names the file, line and field."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def case_sha256(case: Case) -> str:
    return hashlib.sha256(canonical_json(case.model_dump(mode="json")).encode()).hexdigest()


def write_suite(cases: list[Case], directory: Path = DATA_DIR) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    tools: dict[str, list[dict[str, Any]]] = {}
    lines = []
    for case in cases:
        dumped = case.model_dump(mode="json")
        tools.setdefault(case.domain, dumped["tools"])
        if dumped["tools"] != tools[case.domain]:
            raise ValueError(f"{case.id}: its tool list differs from the rest of domain {case.domain!r}")
        del dumped["tools"]
        lines.append(canonical_json(dumped))
    (directory / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / "tools.json").write_text(json.dumps(tools, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    manifest = {
        "suite_version": SUITE_VERSION,
        "cases": len(cases),
        "by_protocol": dict(sorted(Counter(str(c.protocol) for c in cases).items())),
        "by_domain": dict(sorted(Counter(c.domain for c in cases).items())),
        "sha256": {c.id: case_sha256(c) for c in cases},
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(root)"
    return f"field {where}: {first['msg']}"


def read_suite(directory: Path) -> list[Case]:
    """Load a suite directory; errors name the file, line and field."""
    tools_path = directory / "tools.json"
    cases_path = directory / "cases.jsonl"
    try:
        raw_tools = json.loads(tools_path.read_text(encoding="utf-8"))
        tools = {d: [ToolSpec.model_validate(t) for t in ts] for d, ts in raw_tools.items()}
    except (OSError, json.JSONDecodeError) as exc:
        raise CaseFileError(f"{tools_path}: {exc}") from None
    except ValidationError as exc:
        raise CaseFileError(f"{tools_path}: {_validation_message(exc)}") from None
    cases = []
    for number, line in enumerate(cases_path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{cases_path}:{number}"
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise CaseFileError(f"{where}: a case must be a JSON object")
            domain_tools = tools.get(str(data.get("domain")))
            if domain_tools is None:
                raise CaseFileError(f"{where}: field domain: no tools for domain {data.get('domain')!r}")
            cases.append(Case.model_validate({**data, "tools": domain_tools}))
        except json.JSONDecodeError as exc:
            raise CaseFileError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValidationError as exc:
            raise CaseFileError(f"{where}: {_validation_message(exc)}") from None
    return cases


def read_case_file(path: Path) -> list[Case]:
    """Self-contained cases (each line a full case with its tools), e.g. written by `show --json`."""
    cases = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"{path}: {exc.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_CASE_BYTES:
            raise CaseFileError(f"{path}:{number}: case is larger than {MAX_CASE_BYTES} bytes")
        try:
            cases.append(Case.model_validate_json(line))
        except ValidationError as exc:
            raise CaseFileError(f"{path}:{number}: {_validation_message(exc)}") from None
    return cases


@lru_cache(maxsize=1)
def load_suite() -> tuple[Case, ...]:
    """The published suite shipped with the package."""
    return tuple(read_suite(DATA_DIR))


def suite_manifest() -> dict[str, Any]:
    return json.loads((DATA_DIR / "manifest.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
