"""What makes a run one configuration, and how secrets are kept out of what a run records.

A run directory holds episodes of exactly one configuration: one agent (scripted name, model or
label) on one harness, with the same model arguments, endpoint, conditions, case filters, prompt
and suite. `RunConfig` is pinned in `run.json` when the run is created; `--resume` refuses any
difference, and every record carries the configuration's fingerprint and the suite checksum so
`report` and `evaluate` can reject records that do not belong to their run. Repetitions and
`--limit` are not part of the configuration: they only lengthen or shorten the same plan.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.prompts import PROMPT_VERSION
from ..suite.catalog import forget_on_switch
from ..suite.data import SUITE_NAME, SUITE_VERSION, case_hashes, read_manifest, suite_checksum, suite_dir

Harness = Literal[
    "scripted", "inspect", "lean", "command", "codex-cli", "claude-code", "gemini-cli", "opencode", "qwen-code"
]
# harness names of earlier versions: still accepted by `run --harness` (with a warning) and read from
# old run.json files and records. The study's "native" is a family CLI; our own loop is "lean".
RENAMED_HARNESSES = {"native": "lean"}


def current_harness(name: Any) -> Any:
    """A harness name as this version calls it (`native` → `lean`); anything else unchanged."""
    return RENAMED_HARNESSES.get(name, name) if isinstance(name, str) else name


CLI_HARNESSES = ("codex-cli", "claude-code", "gemini-cli", "opencode", "qwen-code")  # family CLIs (family_cli)
# --model-arg names that change how requests are made (or, for the offline scripted provider, inject
# latency and faults), not what the model is asked: a run may resume with other values
EXECUTION_ARGS = frozenset(
    {"timeout", "max_retries", "backoff", "api_key_env", "latency", "jitter", "fail", "misroute"}
)
# --model-arg names that would carry a credential; keys come from the environment only
SECRET_ARGS = frozenset({"api_key", "api-key", "apikey", "key", "token", "access_token", "auth_token", "password"})


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class SuiteId(BaseModel):
    """Which suite a run played: name, version and the checksum over every case's sha256."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    checksum: str


@lru_cache(maxsize=1)
def active_suite() -> SuiteId:
    """The active suite (`suite.data.suite_dir`: the one shipped with the package unless `--suite`
    chose another): name and version from its manifest, and the checksum of the cases its files
    hold (`suite.data.case_hashes`: an edited case changes it, whatever the manifest says).
    `catalog.use_suite` forgets it when the suite changes."""
    directory = suite_dir()
    manifest = read_manifest(directory)
    checksum = suite_checksum(case_hashes(directory).values())
    name = str(manifest.get("suite_name") or SUITE_NAME)
    return SuiteId(name=name, version=str(manifest.get("suite_version") or SUITE_VERSION), checksum=checksum)


forget_on_switch(active_suite.cache_clear)


class RunConfig(BaseModel):
    """The pinned configuration of a run (`run.json` → `config`); defaults describe a plain run of
    the active suite, e.g. `RunConfig(agent="reference", harness="scripted")`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str = Field(description="scripted agent name, model, or --label of a command harness")
    harness: Harness
    model: str | None = None
    model_args: dict[str, Any] = Field(default_factory=dict, description="arguments the model receives")
    generation: dict[str, Any] = Field(
        default_factory=dict, description="generation settings sent with every model call (--temperature, ...)"
    )
    endpoint: str | None = Field(default=None, description="base URL, credentials stripped")
    command: str | None = Field(default=None, description="--harness-cmd template")
    sandbox: bool | None = Field(default=None, description="CLI agents: whether each episode ran sandboxed")
    conditions: list[str] = Field(default_factory=lambda: ["original"])
    filters: dict[str, str | None] = Field(default_factory=dict, description="--protocol/--domain/--cases")
    prompt_version: str = PROMPT_VERSION
    suite: SuiteId = Field(default_factory=lambda: active_suite())

    @field_validator("harness", mode="before")
    @classmethod
    def _current_harness(cls, harness: Any) -> Any:
        return current_harness(harness)

    @field_validator("filters")
    @classmethod
    def _canonical_filters(cls, filters: dict[str, str | None]) -> dict[str, str | None]:
        """Filters as one configuration records them: unset ones left out, values sorted and unique
        (`--protocol V2,V1` is `--protocol V1,V2`)."""
        out: dict[str, str | None] = {}
        for name, value in sorted(filters.items()):
            if value is not None:
                out[name] = ",".join(sorted({v.strip() for v in value.split(",") if v.strip()}))
        return out

    @property
    def fingerprint(self) -> str:
        """16 hex digits of sha256 over the canonical configuration; stamped on every record."""
        dump = self.model_dump(mode="json")
        if not dump["generation"]:  # runs pinned before generation settings existed keep their fingerprint
            del dump["generation"]
        if dump["harness"] == "lean":  # and runs pinned before the lean loop was renamed keep theirs
            dump["harness"] = "native"
        return hashlib.sha256(_canonical(dump).encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        """The configuration's name in reports: `reference`, `openai/gpt-4o · inspect`."""
        return self.agent if self.harness == "scripted" else f"{self.agent} · {self.harness}"

    def differences(self, other: RunConfig) -> list[str]:
        """`field: run has X, this command has Y` for every field that differs."""
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return [
            f"{name}: the run has {_canonical(mine[name])}, this command has {_canonical(theirs[name])}"
            for name in mine
            if mine[name] != theirs[name]
        ]


# ------------------------------------------------------------------------------- secrets

_URL_SECRET = re.compile(r"(?i)(key|token|secret|sig|signature|password|auth)")


def public_url(url: str) -> str:
    """`url` without credentials: user:password@ removed, secret-looking query values redacted."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    query = urlencode(
        [(k, "REDACTED" if _URL_SECRET.search(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    )
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


_HEADER_SECRET = re.compile(
    r"(?i)(authorization|proxy-authorization|x-api-key|api[-_]?key|access[-_]?token)"
    r"([\"']?\s*[:=]\s*[\"']?)((?:bearer|basic)\s+)?[^\s\"',;}]+"
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_TOKEN_LIKE = re.compile(r"\b(sk|pk|rk|hf|gsk|xai)[-_][A-Za-z0-9_\-]{12,}")
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password)")


def _secret_values(env: dict[str, str]) -> list[str]:
    return sorted((v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= 8), key=len, reverse=True)


def redact(text: str, env: dict[str, str] | None = None) -> str:
    """`text` (an error message, an endpoint's error body) with credentials replaced by REDACTED:
    the values of secret-named environment variables, Authorization/API-key header values, and
    strings shaped like provider keys (`sk-...`)."""
    for value in _secret_values(dict(os.environ) if env is None else env):
        text = text.replace(value, "REDACTED")
    text = _HEADER_SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}REDACTED", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} REDACTED", text)
    return _TOKEN_LIKE.sub("REDACTED", text)
