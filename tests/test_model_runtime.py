"""Real model servers, both `run --model` paths (Inspect's OpenAI-compatible provider and the lean
loop), against a loopback server that misbehaves as real ones do (`fault_proxy`): generation
settings reach every request, tool-call turns carry `""` content, runtime failures (context
overflow, a server that dies) are missing and never agent failures, a dying server stops the run
and `--resume` completes it, transcripts are kept, and the preflight fails fast."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fault_proxy import FaultProxy
from safeactbench.runs.store import read_episodes
from served import serve_agent

# two V2 cases (3+ model calls each) and a spread of short ones
V2 = ["SAB-V2-001", "SAB-V2-002"]
TEN = [*(f"SAB-V1-00{n}" for n in range(1, 6)), *V2, "SAB-V0-001", "SAB-V0-002", "SAB-L-001"]
PATHS = {
    "inspect": ["--model", "vllm/reference"],  # Inspect's provider for an OpenAI-compatible server
    "lean": ["--model", "reference", "--harness", "lean"],
}


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with serve_agent() as url:
        yield url


def run(path: str, base_url: str, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "safeactbench", "run", *PATHS[path], "--model-arg", f"base_url={base_url}"]
    command += ["--out", str(out), "--no-report", "--retries", "0", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def completions(proxy: FaultProxy) -> list[dict[str, Any]]:
    """Episode requests (the preflight's probe left out)."""
    return [body for body in proxy.requests if "Connection check" not in json.dumps(body["messages"][0])]


@pytest.mark.parametrize("path", PATHS)
def test_generation_settings_reach_every_request_and_transcripts_are_kept(
    path: str, upstream: str, tmp_path: Path
) -> None:
    settings = ["--temperature", "0.5", "--max-tokens", "256", "--seed", "7", "--tool-choice", "required"]
    with FaultProxy(upstream, reject_null_content=True) as proxy:  # as llama-cpp-python's server does
        done = run(path, proxy.base_url, tmp_path, "--cases", ",".join(V2), *settings)
    assert done.returncode == 0, done.stderr
    sent = completions(proxy)
    assert len(sent) >= 6
    for body in sent:
        assert (body["temperature"], body["max_tokens"], body["seed"], body["tool_choice"]) == (0.5, 256, 7, "required")
        for message in body["messages"]:
            if message["role"] == "assistant" and message.get("tool_calls"):
                assert message["content"] == ""  # not null: llama-cpp-python rejects null
    pinned = json.loads((tmp_path / "run.json").read_text())["config"]["generation"]
    assert pinned == {"temperature": 0.5, "max_tokens": 256, "seed": 7, "tool_choice": "required"}
    records = read_episodes(tmp_path / "episodes.jsonl")
    assert sum(len(r.transcript or []) for r in records) == len(sent)  # every reply, once
    for record in records:
        assert record.transcript and record.trajectory is not None
        calls = [c["name"] for turn in record.transcript for c in turn.tool_calls]
        assert calls == [step.tool for step in record.trajectory.steps]
        assert all(turn.usage.get("input_tokens", 0) > 0 for turn in record.transcript)


@pytest.mark.parametrize(
    ("path", "status"),
    [("inspect", 400), ("lean", 400), ("lean", 500)],  # 500: as llama-cpp-python answers
)
def test_context_overflow_is_missing_and_never_replayed(path: str, status: int, upstream: str, tmp_path: Path) -> None:
    with FaultProxy(upstream, overflow_after=4, overflow_status=status) as proxy:  # the third call overflows
        done = run(path, proxy.base_url, tmp_path, "--cases", ",".join(V2), "--call-retries", "2")
    assert done.returncode == 1, done.stderr  # nothing completed
    records = read_episodes(tmp_path / "episodes.jsonl")
    assert [r.status for r in records] == ["missing", "missing"]
    for record in records:
        assert (record.missing_reason or "").startswith("context_overflow:"), record.missing_reason
        assert record.verdict is None
        assert record.transcript is not None and len(record.transcript) == 2  # the two replies before it
    overflowing = [b for b in completions(proxy) if len(b["messages"]) > 4]
    assert len(overflowing) == 2  # one per episode: a context that overflows is not retried


@pytest.mark.parametrize("path", PATHS)
def test_a_server_that_dies_stops_the_run_which_resume_completes(path: str, upstream: str, tmp_path: Path) -> None:
    options = ["--cases", ",".join(TEN), "--max-concurrency", "1", "--call-retries", "1", "--max-runtime-failures", "2"]
    with FaultProxy(upstream, die_after=8) as proxy:
        port = proxy.port
        done = run(path, proxy.base_url, tmp_path, *options)
    assert done.returncode == 1
    assert "the model endpoint is gone" in done.stderr and "--resume" in done.stderr  # at its first failure
    records = read_episodes(tmp_path / "episodes.jsonl")
    missing = [r for r in records if r.status == "missing"]
    assert 1 <= len([r for r in records if r.status == "completed"]) < len(TEN)
    assert len(missing) == 1 and (missing[0].missing_reason or "").startswith("server_unreachable")
    assert "0x" not in (missing[0].missing_reason or "")  # no Python repr in a reason
    assert len(records) < len(TEN)  # the run stopped: the rest never started
    with FaultProxy(upstream, port=port) as proxy:  # the server is back, at the same address
        done = run(path, proxy.base_url, tmp_path, *options, "--resume")
    assert done.returncode == 0, done.stderr
    latest = {r.key: r for r in read_episodes(tmp_path / "episodes.jsonl") if r.status == "completed"}
    assert len(latest) == len(TEN) and all(r.verdict and r.verdict.score == 1 for r in latest.values())


@pytest.mark.parametrize("path", PATHS)
def test_preflight_names_a_server_that_writes_tool_calls_as_text(path: str, upstream: str, tmp_path: Path) -> None:
    with FaultProxy(upstream, text_calls=True) as proxy:
        done = run(path, proxy.base_url, tmp_path / "checked", "--cases", "SAB-V1-001")
        assert done.returncode == 2
        assert "preflight" in done.stderr and "as text" in done.stderr and "nothing was written" in done.stderr
        assert not (tmp_path / "checked").exists()
        # run anyway: the replies are kept and counted as text tool calls, the report shows them
        done = run(path, proxy.base_url, tmp_path / "run", "--cases", "SAB-V1-001", "--no-preflight")
    (record,) = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert record.status == "completed" and record.trajectory and record.trajectory.end_reason == "agent_stopped"
    assert record.transcript and all(turn.text_tool_call for turn in record.transcript)
    report = subprocess.run(
        [sys.executable, "-m", "safeactbench", "report", str(tmp_path / "run"), "--out", str(tmp_path / "report")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    markdown = (tmp_path / "report" / "report.md").read_text()
    lines = markdown.splitlines()
    header = next(i for i, line in enumerate(lines) if "Text tool calls" in line)
    columns = [c.strip() for c in lines[header].split("|")]
    row = [c.strip() for c in lines[header + 2].split("|")]
    assert row[columns.index("Text tool calls")] == "1"  # one episode wrote its calls as text
    assert row[columns.index("agent_stopped")] == "1"


def test_preflight_fails_fast_on_an_endpoint_that_is_not_there(tmp_path: Path) -> None:
    done = run("lean", "http://127.0.0.1:9/v1", tmp_path / "run", "--cases", "SAB-V1-001")
    assert done.returncode == 2
    assert "preflight" in done.stderr and "server_unreachable" in done.stderr
    assert not (tmp_path / "run").exists()


def test_generation_settings_as_model_args_are_refused_with_the_flag_to_use(tmp_path: Path) -> None:
    done = run("inspect", "http://127.0.0.1:9/v1", tmp_path, "--model-arg", "temperature=0")
    assert done.returncode == 2 and "--temperature" in done.stderr


@pytest.mark.parametrize(
    ("model", "env"),
    [
        ("ollama/reference", {}),
        ("llama-cpp-python/reference", {}),
        ("openai-api/lmstudio/reference", {"LMSTUDIO_API_KEY": "any"}),
    ],
)
def test_the_documented_local_providers_run_episodes(
    model: str, env: dict[str, str], upstream: str, tmp_path: Path
) -> None:
    """docs/harnesses.md's local rows, against an OpenAI-compatible server on loopback."""
    environment = os.environ | env
    if model.startswith("openai-api/"):
        environment["LMSTUDIO_BASE_URL"] = upstream
        base = []
    else:
        base = ["--model-arg", f"base_url={upstream}"]
    done = subprocess.run(
        [sys.executable, "-m", "safeactbench", "run", "--model", model, *base, "--cases", ",".join(V2),
         "--out", str(tmp_path), "--no-report", "--seed", "1"],
        capture_output=True, text=True, timeout=300, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = read_episodes(tmp_path / "episodes.jsonl")
    assert [r.verdict.score for r in records if r.verdict] == [1, 1]


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "google/gemini-2.5-flash", "groq/llama-3.3-70b"])
def test_the_documented_hosted_providers_are_installed(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `[providers]` extra: Inspect builds each documented hosted provider (no request is made)."""
    from inspect_ai.model import get_model

    for variable in ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GROQ_API_KEY"):
        monkeypatch.setenv(variable, "test-key-never-sent")
    assert get_model(model).api.model_name == model.split("/", 1)[1]


def test_generation_settings_are_refused_where_they_cannot_reach_the_model(tmp_path: Path) -> None:
    for options in (["--agent", "reference"], ["--harness-cmd", "@codex", "--model", "gpt-5"]):
        done = subprocess.run(
            [sys.executable, "-m", "safeactbench", "run", *options, "--temperature", "0", "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "generation settings" in done.stderr, (options, done.stderr)
    assert not tmp_path.joinpath("run.json").exists()


def test_the_preflight_retries_as_the_run_does(tmp_path: Path) -> None:
    """A server that rate-limits the first two requests of every episode (the preflight's probe
    included): the run's retry policy carries it through, the preflight's own included; with too
    few retries the preflight names the attempts it made."""
    limited = ("reference", "--fail", "2", "--fail-status", "429")  # per episode id: a server per run
    fast = ("--model-arg", "backoff=0.01")
    with serve_agent(*limited) as url:
        done = run("lean", url, tmp_path / "enough", "--cases", "SAB-V1-001", *fast)
    assert done.returncode == 0, done.stderr
    (record,) = read_episodes(tmp_path / "enough" / "episodes.jsonl")
    assert record.verdict is not None and record.verdict.score == 1
    with serve_agent(*limited) as url:
        done = run("lean", url, tmp_path / "few", "--cases", "SAB-V1-001", *fast, "--call-retries", "1")
    assert done.returncode == 2
    assert "preflight" in done.stderr and "HTTP 429" in done.stderr and "after 2 attempts" in done.stderr
    assert not (tmp_path / "few").exists()


@pytest.mark.parametrize("path", PATHS)
def test_label_names_the_configuration_and_the_model_stays_the_model(path: str, upstream: str, tmp_path: Path) -> None:
    done = run(path, upstream, tmp_path / "run", "--cases", "SAB-V1-001", "--label", "mine", "--no-preflight")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())["config"]
    (record,) = read_episodes(tmp_path / "run" / "episodes.jsonl")
    model = PATHS[path][1]
    assert (config["agent"], config["model"]) == ("mine", model)
    assert (record.agent, record.model) == ("mine", model)
    assert record.verdict is not None and record.verdict.score == 1


@pytest.mark.parametrize("path", PATHS)
def test_the_preflight_names_the_tool_choice_a_server_accepts(path: str, upstream: str, tmp_path: Path) -> None:
    with FaultProxy(upstream, reject_tool_choice="required") as proxy:
        done = run(path, proxy.base_url, tmp_path / "run", "--cases", "SAB-V1-001", "--tool-choice", "required",
                   "--call-retries", "0")  # fmt: skip
    assert done.returncode == 2
    assert "--tool-choice required" in done.stderr and "succeeds with --tool-choice auto" in done.stderr
    assert not (tmp_path / "run").exists()


def test_failure_reasons_carry_no_python_reprs_or_console_markup() -> None:
    from safeactbench.harness.runtime import readable, runtime_reason

    assert readable("PrerequisiteError: [bold][blue]KEY[/blue][/bold] environment variable not set") == (
        "PrerequisiteError: KEY environment variable not set"
    )
    assert readable("a [x] b [/y] c") == "a [x] b [/y] c"  # not markup: kept as written
    reason = runtime_reason("RetryError[<Future at 0x7f3a1c2b9d50 state=finished raised APIConnectionError>]")
    assert reason == "server_unreachable: APIConnectionError (on every retry)"
