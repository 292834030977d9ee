"""The published suite: versioned JSONL package data with a manifest of checksums.

Layout of a suite directory: `cases.jsonl` (one case per line, without its domain's tools and
policy records), `tools.json` (each domain's tool list, stored once: the list most of its cases
offer; a case that narrows or extends it is stored whole: its own `tools` and all its records in
its line), `policies.json` (each
domain's operating-policy records, stored once and appended to every case's records on load;
optional) and `manifest.json` (suite version, counts, per-case sha256 over the self-contained
case). Published cases are never edited silently: any change to their bytes must come with a new
SUITE_VERSION and a line in docs/CHANGELOG-suite.md.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..authoring.policy import POLICY_TYPE
from ..core.base import first_error
from ..core.model import Case
from ..core.tool_spec import ToolSpec

SUITE_VERSION = "0.5.0"
SUITE_NAME = "safeactbench"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
MAX_CASE_BYTES = 2_000_000


class CaseFileError(ValueError):
    """A case file that cannot be loaded; the message names the file, line and field."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def case_sha256(case: Case) -> str:
    """sha256 of the canonical JSON of the whole case, tools included.

    Byte-identical to hashing `canonical_json(case.model_dump(mode="json"))`, but built by parts:
    the tool list - the same objects for every case of a domain, most of a case's bytes - is
    serialised once per list and reused (run.json's suite checksum hashes every case of a run)."""
    rest = case.model_dump(mode="json", exclude={"tools"})
    parts = []
    for key in sorted([*rest, "tools"]):
        value = _tools_json(case.tools) if key == "tools" else canonical_json(rest[key])
        parts.append(f"{canonical_json(key)}:{value}")
    return hashlib.sha256(("{" + ",".join(parts) + "}").encode()).hexdigest()


_TOOLS_JSON: dict[tuple[int, ...], tuple[tuple[ToolSpec, ...], str]] = {}


def _tools_json(tools: list[ToolSpec]) -> str:
    """Canonical JSON of a tool list, cached by the identity of its (frozen) tool objects; the cache
    entry holds the objects, so their ids cannot be reused by other tools while it exists."""
    key = tuple(map(id, tools))
    hit = _TOOLS_JSON.get(key)
    if hit is None:
        if len(_TOOLS_JSON) >= 64:
            _TOOLS_JSON.clear()
        hit = (tuple(tools), canonical_json([t.model_dump(mode="json") for t in tools]))
        _TOOLS_JSON[key] = hit
    return hit[1]


def _shared_tools(dumped: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each domain's tool list as tools.json stores it: the list most of its cases offer (the first
    such, on a tie)."""
    counts: dict[str, Counter[str]] = {}
    lists: dict[str, list[dict[str, Any]]] = {}
    for case in dumped:
        text = canonical_json(case["tools"])
        counts.setdefault(case["domain"], Counter())[text] += 1
        lists.setdefault(text, case["tools"])
    return {domain: lists[count.most_common(1)[0][0]] for domain, count in counts.items()}


def write_suite(
    cases: list[Case], directory: Path = DATA_DIR, name: str = SUITE_NAME, version: str = SUITE_VERSION
) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    policies: dict[str, list[dict[str, Any]]] = {}
    all_dumped = [case.model_dump(mode="json") for case in cases]
    tools = _shared_tools(all_dumped)
    lines = []
    for case, dumped in zip(cases, all_dumped, strict=True):
        if dumped["tools"] != tools[case.domain]:
            lines.append(canonical_json(dumped))  # a tool list of its own: the case is stored whole
            continue
        del dumped["tools"]  # the domain's list, stored once in tools.json
        own = [r for r in dumped["records"] if r["type"] != POLICY_TYPE]
        shared = dumped["records"][len(own) :]
        if own + shared != dumped["records"] or policies.setdefault(case.domain, shared) != shared:
            raise ValueError(f"{case.id}: its policy records are not the last ones, or differ from the domain's")
        dumped["records"] = own
        lines.append(canonical_json(dumped))
    (directory / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / "tools.json").write_text(json.dumps(tools, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    text = json.dumps(policies, indent=1, sort_keys=True, ensure_ascii=False)
    (directory / "policies.json").write_text(text + "\n", encoding="utf-8")
    manifest = {
        "suite_name": name,
        "suite_version": version,
        "cases": len(cases),
        "by_protocol": dict(sorted(Counter(str(c.protocol) for c in cases).items())),
        "by_domain": dict(sorted(Counter(c.domain for c in cases).items())),
        "sha256": {c.id: case_sha256(c) for c in cases},
        "files": file_sha256s(directory),
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CaseFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _json_error(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "not valid JSON (nested too deeply)"
    return f"not valid JSON ({exc})"


def _read_tools_json(directory: Path) -> tuple[Path, dict[str, Any]]:
    tools_path = directory / "tools.json"
    try:
        raw_tools = json.loads(_read_text(tools_path))
    except (ValueError, RecursionError) as exc:
        raise CaseFileError(f"{tools_path}: {_json_error(exc)}") from None
    if not isinstance(raw_tools, dict):
        raise CaseFileError(f"{tools_path}: expected an object mapping each domain to its list of tools")
    return tools_path, raw_tools


def _domain_tools(tools_path: Path, domain: str, specs: Any) -> list[ToolSpec]:
    if not isinstance(specs, list):
        raise CaseFileError(f"{tools_path}: field {domain}: expected a list of tools")
    tools = []
    for index, spec in enumerate(specs):
        try:
            tools.append(ToolSpec.model_validate(spec))
        except ValidationError as exc:
            raise CaseFileError(f"{tools_path}: {domain}[{index}]: {first_error(exc)}") from None
    return tools


def _case_data(where: str, line: str) -> dict[str, Any]:
    """One line of cases.jsonl as a JSON object (size-checked before it is parsed)."""
    if len(line) > MAX_CASE_BYTES:
        raise CaseFileError(f"{where}: case is larger than {MAX_CASE_BYTES} bytes")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise CaseFileError(f"{where}: {_json_error(exc)}") from None
    if not isinstance(data, dict):
        raise CaseFileError(f"{where}: a case must be a JSON object, got {type(data).__name__}")
    return data


def _read_policies_json(directory: Path) -> dict[str, list[Any]]:
    """Each domain's shared policy records (a suite directory without the file has none)."""
    path = directory / "policies.json"
    if not path.exists():
        return {}
    try:
        raw = json.loads(_read_text(path))
    except (ValueError, RecursionError) as exc:
        raise CaseFileError(f"{path}: {_json_error(exc)}") from None
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        raise CaseFileError(f"{path}: expected an object mapping each domain to its list of policy records")
    return raw


def _case(where: str, data: dict[str, Any], tools: dict[str, list[ToolSpec]], policies: dict[str, list[Any]]) -> Case:
    """One case of a suite: its line, with its domain's tools and policy records unless it is stored
    whole."""
    if "tools" in data:  # stored whole (tools and records)
        domain_tools, shared = data["tools"], []
    else:
        domain_tools, shared = tools.get(str(data.get("domain"))), policies.get(str(data.get("domain")), [])
    if domain_tools is None:
        raise CaseFileError(f"{where}: field domain: no tools for domain {data.get('domain')!r}")
    records = data.get("records")
    if isinstance(records, list) and shared:
        data = {**data, "records": [*records, *shared]}
    try:
        return Case.model_validate({**data, "tools": domain_tools})
    except ValidationError as exc:
        raise CaseFileError(f"{where}: {first_error(exc)}") from None


def iter_suite(directory: Path) -> Iterator[Case]:
    """The cases of a suite directory one at a time, in file order; errors name the file, line and
    field, and a case id on two lines is refused with both line numbers."""
    tools_path, raw_tools = _read_tools_json(directory)
    tools = {domain: _domain_tools(tools_path, domain, specs) for domain, specs in raw_tools.items()}
    policies = _read_policies_json(directory)
    cases_path = directory / "cases.jsonl"
    first_line: dict[str, int] = {}
    for number, line in enumerate(_read_text(cases_path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{cases_path}:{number}"
        case = _case(where, _case_data(where, line), tools, policies)
        _refuse_duplicate(cases_path, case.id, number, first_line)
        yield case


def read_suite(directory: Path) -> list[Case]:
    """Load a suite directory; errors name the file, line and field."""
    return list(iter_suite(directory))


def _refuse_duplicate(path: Path, case_id: str, number: int, first_line: dict[str, int]) -> None:
    if case_id in first_line:
        raise CaseFileError(
            f"{path}:{number}: case id {case_id!r} is already on line {first_line[case_id]}; "
            "a suite holds each case once"
        )
    first_line[case_id] = number


def read_case(directory: Path, case_id: str) -> Case | None:
    """The case `case_id` of a suite directory as `read_suite` loads it, or None if it has none.

    For a process that plays one case (`safeactbench mcp`): only the lines holding the id as a JSON
    string are parsed, and only that case's domain tools are validated, so start-up does not pay
    for the whole suite. Lines are split as `read_suite` splits them, and errors name the same
    file, line and field (a second line with the id among them). The rest of the suite is not
    checked.
    """
    cases_path = directory / "cases.jsonl"
    # canonical lines hold the id exactly as json.dumps(ensure_ascii=False) writes it; a hand-written
    # line may \u-escape it. A mention of the id elsewhere in another case is parsed and passed over.
    needles = {json.dumps(case_id), json.dumps(case_id, ensure_ascii=False)}
    found: tuple[str, dict[str, Any]] | None = None
    first_line: dict[str, int] = {}
    for number, line in enumerate(_read_text(cases_path).splitlines(), start=1):
        if any(needle in line for needle in needles):
            where = f"{cases_path}:{number}"
            data = _case_data(where, line)
            if data.get("id") == case_id:
                _refuse_duplicate(cases_path, case_id, number, first_line)
                found = (where, data)
    if found is None:
        return None
    where, data = found
    tools_path, raw_tools = _read_tools_json(directory)
    domain = str(data.get("domain"))
    tools = {domain: _domain_tools(tools_path, domain, raw_tools[domain])} if domain in raw_tools else {}
    return _case(where, data, tools, _read_policies_json(directory))


def read_case_file(path: Path) -> list[Case]:
    """Self-contained cases (each line a full case with its tools), e.g. written by `show --json`."""
    cases = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_CASE_BYTES:
            raise CaseFileError(f"{path}:{number}: case is larger than {MAX_CASE_BYTES} bytes")
        try:
            cases.append(Case.model_validate_json(line))
        except ValidationError as exc:
            raise CaseFileError(f"{path}:{number}: {first_error(exc)}") from None
    return cases


class CaseIndex:
    """The cases of a suite directory, each parsed when asked for: the lines stay text (9 MB for the
    packaged suite, where all its cases parsed take ~100 MB) and a small cache keeps the last cases
    parsed. For a process that reads many records of few cases at a time (a report over a large
    run). A case reads as `read_suite` reads it; an id on two lines is refused as there."""

    def __init__(self, directory: Path, cache: int = 32) -> None:
        path = directory / "cases.jsonl"
        self._lines: dict[str, tuple[str, str]] = {}
        first_line: dict[str, int] = {}
        for number, line in enumerate(_read_text(path).splitlines(), start=1):
            if line.strip():
                where = f"{path}:{number}"
                case_id = str(_case_data(where, line).get("id"))
                _refuse_duplicate(path, case_id, number, first_line)
                self._lines[case_id] = (where, line)
        tools_path, raw_tools = _read_tools_json(directory)
        self._tools = {domain: _domain_tools(tools_path, domain, specs) for domain, specs in raw_tools.items()}
        self._policies = _read_policies_json(directory)
        self.get = lru_cache(maxsize=cache)(self._parse)

    def __contains__(self, case_id: str) -> bool:
        return case_id in self._lines

    def _parse(self, case_id: str) -> Case | None:
        found = self._lines.get(case_id)
        if found is None:
            return None
        where, line = found
        return _case(where, _case_data(where, line), self._tools, self._policies)


SUITE_ENV = "SAFEACTBENCH_SUITE"  # the suite directory this process and its children play (`--suite`)
SUITE_FILES = ("cases.jsonl", "tools.json", "manifest.json")


def suite_dir() -> Path:
    """The active suite directory: $SAFEACTBENCH_SUITE (set by `--suite DIR`, inherited by the
    processes a run starts), else the suite shipped with the package."""
    chosen = os.environ.get(SUITE_ENV)
    return Path(chosen) if chosen else DATA_DIR


def check_suite_dir(directory: Path) -> Path:
    """`directory` resolved, if it holds a suite (the files `suite build` writes); else a
    CaseFileError naming what is missing."""
    if not directory.is_dir():
        raise CaseFileError(f"{directory}: not a suite directory (expected {', '.join(SUITE_FILES)})")
    missing = [name for name in SUITE_FILES if not (directory / name).is_file()]
    if missing:
        raise CaseFileError(
            f"{directory}: not a suite directory: no {', '.join(missing)} (see `safeactbench suite build`)"
        )
    return directory.resolve()


@lru_cache(maxsize=1)
def load_suite() -> tuple[Case, ...]:
    """The active suite (`suite_dir`): by default the published suite shipped with the package."""
    return tuple(read_suite(suite_dir()))


def suite_manifest() -> dict[str, Any]:
    """The active suite's manifest (`read_manifest`)."""
    return read_manifest(suite_dir())


def read_manifest(directory: Path) -> dict[str, Any]:
    """A suite directory's manifest.json: name, version, counts, each case's sha256 and (from
    `write_suite`) the sha256 of each file the cases are read from."""
    path = directory / "manifest.json"
    try:
        manifest = json.loads(_read_text(path))
    except (ValueError, RecursionError) as exc:
        raise CaseFileError(f"{path}: {_json_error(exc)}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("sha256"), dict):
        raise CaseFileError(f"{path}: expected an object with each case's sha256 (as `suite build` writes it)")
    return manifest


HASHED_FILES = ("cases.jsonl", "tools.json", "policies.json")  # what a case is read from


def file_sha256s(directory: Path) -> dict[str, str]:
    """sha256 of each file the cases are read from, as the manifest records them (`write_suite`)."""
    out = {}
    for name in HASHED_FILES:
        path = directory / name
        if path.is_file():
            try:
                out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as exc:
                raise CaseFileError(f"{path}: {exc.strerror or exc}") from None
    return out


def case_hashes(directory: Path) -> dict[str, str]:
    """Each case's sha256 (`case_sha256`) by id, for the suite its files hold now. The manifest's
    hashes serve only while the files are byte for byte the ones it was written with; otherwise
    (a case edited, added or removed since `suite build`, or a manifest without file hashes)
    every case is read and hashed, so a suite is identified by what it holds, never by its
    manifest."""
    manifest = read_manifest(directory)
    if manifest.get("files") == file_sha256s(directory):
        return dict(manifest["sha256"])
    return {case.id: case_sha256(case) for case in iter_suite(directory)}


def suite_checksum(hashes: Iterable[str]) -> str:
    """The checksum of a set of cases: sha256 over their sorted sha256s (run.json, every record)."""
    return hashlib.sha256(canonical_json(sorted(hashes)).encode()).hexdigest()
