"""The lean harness (`run --harness lean`) against real HTTP endpoints on loopback.

Endpoints: `safeactbench serve-agent` (scripted agents behind the OpenAI-compatible API, in its
own process) and, for what no scripted agent does (invalid JSON, unknown tools, broken bodies), a
hand-written endpoint in a thread that answers a fixed script.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from safeactbench.agents import get_agent
from safeactbench.harness.agent_server import made_calls
from safeactbench.harness.openai_api import Endpoint, parse_reply
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import read_episodes
from safeactbench.suite.catalog import get_case
from safeactbench.suite.data import load_suite
from served import serve_agent

SECRET = "sk-test-NATIVE-never-written-9c8b7a"
SPREAD = ",".join(c.id for c in list(load_suite())[::41])  # 16 cases over every protocol and domain


def served(agent: str, *options: str) -> contextlib.AbstractContextManager[str]:
    return serve_agent(agent, *options)


def free_port() -> str:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "safeactbench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    return done.returncode, done.stdout + done.stderr


def lean(
    url: str, out: Path, *extra: str, env: dict[str, str] | None = None, preflight: bool = False
) -> tuple[int, str]:
    """`run --harness lean` against `url`; without the preflight unless asked (most endpoints here
    are scripted to answer episode requests only)."""
    checked = [] if preflight else ["--no-preflight"]
    return cli("run", "--model", "openai/served", "--harness", "lean", "--model-arg", f"base_url={url}",
               "--model-arg", "backoff=0.01", "--no-report", "--out", str(out), *checked, *extra, env=env)  # fmt: skip


# -------------------------------------------------------------------------------- end to end


def test_reference_agent_over_http_scores_every_case_and_records_what_the_in_process_loop_records(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    with served("reference") as url:
        code, output = lean(url, out, "--cases", SPREAD, "--condition", "original,withheld", "--max-concurrency", "4")
    assert code == 0, output
    records = read_episodes(out / "episodes.jsonl")
    acting = sum(get_case(c).protocol.value in ("V1", "V2", "V3") for c in SPREAD.split(","))  # have stop twins
    assert len(records) == len(SPREAD.split(",")) + acting
    assert all(r.status == "completed" and r.verdict and r.verdict.score == 1 for r in records)
    assert {r.harness for r in records} == {"lean"} and {r.agent for r in records} == {"openai/served"}
    assert all(r.usage.get("total_tokens", 0) > 0 for r in records)
    reference = get_agent("reference")
    for record in records:
        local = play_scripted(Job(get_case(record.case_id, record.condition), record.condition, 0), reference)
        assert record.trajectory == local.trajectory, record.case_id
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["harness"] == "lean" and meta["completed"] == len(records)
    assert meta["config"]["endpoint"] == url and meta["config"]["model_args"] == {}


def test_the_old_name_native_runs_resumes_and_reports_as_lean(tmp_path: Path) -> None:
    """`--harness native` (the lean loop's name in earlier versions) still runs, with a warning, and
    a run directory recorded under the old name resumes and reports as `lean`."""
    out = tmp_path / "run"
    cases = SPREAD.split(",")
    with served("reference") as url:
        first = ["--no-preflight", "--no-report", "--out", str(out), "--cases", ",".join(cases[:2]), "--limit", "1"]
        code, output = cli("run", "--model", "openai/served", "--harness", "native", "--model-arg", f"base_url={url}",
                           *first)  # fmt: skip
        assert code == 0 and "--harness native is deprecated; it is now --harness lean" in output, output
        assert json.loads((out / "run.json").read_text())["config"]["harness"] == "lean"
        # the run as an earlier version wrote it
        for name in ("run.json", "episodes.jsonl"):
            path = out / name
            path.write_text(path.read_text().replace('"harness":"lean"', '"harness":"native"')
                            .replace('"harness": "lean"', '"harness": "native"'))  # fmt: skip
        assert '"native"' in (out / "episodes.jsonl").read_text() and '"native"' in (out / "run.json").read_text()
        code, output = lean(url, out, "--cases", ",".join(cases[:2]), "--resume")
    assert code == 0, output
    records = read_episodes(out / "episodes.jsonl")
    assert [r.case_id for r in records] == cases[:2] and {r.harness for r in records} == {"lean"}
    code, output = cli("report", str(out), "--out", str(tmp_path / "report"))
    assert code == 0, output
    assert json.loads((tmp_path / "report" / "report.json").read_text())["configurations"] == ["openai/served · lean"]


def test_inspect_and_lean_harnesses_record_the_same_episodes(tmp_path: Path) -> None:
    """Inspect's openai provider sends no episode header: the served agent finds the case by its
    prompts. Both harnesses must hand the agent the same conversation and record the same steps."""
    cases = "SAB-V0-003,SAB-V2-005,SAB-V3-007,SAB-L-002"
    with served("reference") as url:
        code, output = lean(url, tmp_path / "lean", "--cases", cases)
        assert code == 0, output
        args = [
            "run",
            "--model",
            "openai/served",
            "--model-arg",
            f"base_url={url}",
            "--model-arg",
            "responses_api=false",
        ]
        code, output = cli(*args, "--cases", cases, "--no-report", "--out", str(tmp_path / "inspect"),
                           env={"OPENAI_API_KEY": "sk-local"})  # fmt: skip
    assert code == 0, output
    runs = {
        name: {r.case_id: r for r in read_episodes(tmp_path / name / "episodes.jsonl")} for name in ("lean", "inspect")
    }
    assert set(runs["lean"]) == set(runs["inspect"]) == set(cases.split(","))
    for case_id, record in runs["lean"].items():
        other = runs["inspect"][case_id]
        assert other.harness == "inspect" and other.verdict and other.verdict.score == 1
        assert record.trajectory == other.trajectory, case_id


def test_worker_processes_play_each_episode_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with served("reference") as url:
        code, output = lean(url, out, "--cases", SPREAD, "--repeat", "3", "--max-concurrency", "8", "--workers", "2")
    assert code == 0, output
    keys = [r.key for r in read_episodes(out / "episodes.jsonl")]
    assert len(keys) == len(set(keys)) == 3 * len(SPREAD.split(","))


def test_sigkill_midway_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with served("reference", "--latency", "0.05") as url:
        args = ["run", "--model", "served", "--harness", "lean", "--model-arg", f"base_url={url}"]
        args += ["--protocol", "V2", "--domain", "customer,healthcare", "--max-concurrency", "4", "--workers", "2"]
        args += ["--no-report", "--out", str(out)]
        process = subprocess.Popen(
            [sys.executable, "-m", "safeactbench", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        path, deadline = out / "episodes.jsonl", time.monotonic() + 120
        while not path.exists() or len(path.read_text().splitlines()) < 8:
            assert process.poll() is None and time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        survived = {r.key for r in read_episodes(path)}
        planned = sum(c.protocol.value == "V2" and c.domain in ("customer", "healthcare") for c in load_suite())
        assert 0 < len(survived) < planned
        code, output = cli(*args, "--resume")
    assert code == 0, output
    records = read_episodes(path)
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == planned and survived <= set(keys)
    assert all(r.verdict and r.verdict.score == 1 for r in records)


# ------------------------------------------------------------------------- runtime failures


def test_api_failures_are_retried_then_stored_as_missing_and_resumed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cases = "SAB-V1-001,SAB-V2-001,SAB-L-001"
    with served("reference", "--fail", "2") as url:  # two 500s per episode: the retries absorb them
        code, output = lean(url, tmp_path / "retried", "--cases", cases)
        assert code == 0, output
        assert all(r.status == "completed" for r in read_episodes(tmp_path / "retried" / "episodes.jsonl"))
    port = free_port()  # the endpoint is part of the run's configuration: the recovered server is at the same URL
    with served("reference", "--fail", "2", "--port", port) as url:  # with one retry, every episode fails for good
        code, output = lean(url, out, "--cases", cases, "--model-arg", "max_retries=1")
    assert code == 1 and "no episode completed" in output, output
    records = read_episodes(out / "episodes.jsonl")
    assert [r.status for r in records] == ["missing"] * 3
    assert all(r.missing_reason and r.missing_reason.startswith("runtime_error: HTTP 500") for r in records)
    assert "runtime failures" in output and "0/3" in output
    with served("reference", "--port", port) as url:
        code, output = lean(url, out, "--cases", cases, "--resume")
    assert code == 0, output
    latest = {r.key: r for r in read_episodes(out / "episodes.jsonl")}  # a completed retry supersedes
    assert len(latest) == 3 and all(r.status == "completed" for r in latest.values())


def test_refused_requests_stop_the_run_and_keep_what_is_stored(tmp_path: Path) -> None:
    with served("reference", "--fail", "1000", "--fail-status", "401") as url:
        code, output = lean(url, tmp_path / "checked", "--cases", SPREAD, preflight=True)
        assert code == 2 and "preflight" in output and "HTTP 401" in output  # before anything is written
        assert not (tmp_path / "checked").exists()
        code, output = lean(url, tmp_path / "run", "--cases", SPREAD)
        assert code == 1 and "HTTP 401" in output
        # the same through worker processes: each stops, the parent reports it once
        code, output = lean(url, tmp_path / "run", "--cases", SPREAD, "--workers", "2", "--resume")
    assert code == 1
    assert "HTTP 401" in output and "--resume" in output
    assert json.loads((tmp_path / "run" / "run.json").read_text())["completed"] == 0


def test_an_endpoint_that_is_down_stops_the_run_at_its_first_failure(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    code, output = lean(url, tmp_path / "run", "--protocol", "V1", "--max-concurrency", "2",
                          "--model-arg", "max_retries=1")  # fmt: skip
    assert code == 1, output
    assert "the model endpoint is gone" in output and "--resume" in output
    records = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert 1 <= len(records) <= 2 and all(r.status == "missing" for r in records)  # the episodes in flight
    assert all("server_unreachable: ClientConnectorError" in (r.missing_reason or "") for r in records)


def test_an_endpoint_that_keeps_failing_stops_the_run_after_five_failures_in_a_row(tmp_path: Path) -> None:
    with served("reference", "--fail", "1000", "--fail-status", "500") as url:  # there, and failing every call
        code, output = lean(url, tmp_path / "run", "--protocol", "V1", "--max-concurrency", "2",
                            "--model-arg", "max_retries=0")  # fmt: skip
    assert code == 1, output
    assert "episodes in a row failed at runtime" in output and "--resume" in output
    records = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert 5 <= len(records) <= 6 and all(r.status == "missing" for r in records)
    assert all("runtime_error: HTTP 500" in (r.missing_reason or "") for r in records)


def test_bad_arguments_are_named_before_anything_runs(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
    checks = {
        ("--model-arg", "api_key=sk-x"): "api_key_env",
        ("--model-arg", "base_url=ftp://x"): "base_url",
        ("--model-arg", "base_url=http://127.0.0.1:9/v1", "--model-arg", "timeout=soon"): "timeout",
        (): "OPENAI_API_KEY is not set",
    }
    for extra, expected in checks.items():
        code, output = cli(
            "run", "--model", "openai/gpt-x", "--harness", "lean", *extra, "--out", str(tmp_path / "r"), env=env
        )
        assert code == 2 and expected in output, (extra, output)
    code, output = cli("run", "--harness", "lean", "--out", str(tmp_path / "r"))
    assert code == 2 and "pass --model" in output
    code, output = cli("run", "--model", "safeactbench/reference", "--workers", "2", "--out", str(tmp_path / "r"))
    assert code == 2 and "--workers" in output
    assert not (tmp_path / "r").exists()


def test_the_key_is_sent_but_never_written(tmp_path: Path) -> None:
    seen: list[str] = []
    with scripted_endpoint([submit_reply()], seen_auth=seen) as url:
        code, output = lean(url, tmp_path / "run", "--cases", "SAB-V0-001", env={"OPENAI_API_KEY": SECRET})
    assert code == 0, output
    assert seen == [f"Bearer {SECRET}"]
    assert not any(SECRET.encode() in p.read_bytes() for p in (tmp_path / "run").rglob("*") if p.is_file())


def test_requests_go_through_the_proxy_the_environment_names(tmp_path: Path) -> None:
    with scripted_endpoint([submit_reply()]) as proxy:  # answers whatever it is sent, as a proxy would
        env = {"HTTP_PROXY": proxy.removesuffix("/v1"), "NO_PROXY": ""}
        code, output = lean("http://model.invalid/v1", tmp_path / "run", "--cases", "SAB-V0-001", env=env)
    assert code == 0, output
    [record] = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert record.status == "completed" and record.trajectory and record.trajectory.end_reason == "submitted"


# ----------------------------------------------------------- what the model sends, unfiltered


def tool_reply(name: str, arguments: str) -> dict[str, Any]:
    call = {"id": f"c-{name}", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}


def submit_reply(outcome: str = "DEFER") -> dict[str, Any]:
    return tool_reply("submit", json.dumps({"outcome": outcome}))


def text_reply(text: str) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": text}}], "usage": {"total_tokens": 5}}


@contextlib.contextmanager
def scripted_endpoint(replies: list[dict[str, Any] | bytes], seen_auth: list[str] | None = None) -> Iterator[str]:
    """An OpenAI-compatible endpoint in a thread answering `replies` in order (bytes: sent raw)."""
    pending = list(replies)
    requests: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            requests.append(json.loads(body))
            if seen_auth is not None and self.headers.get("Authorization"):
                seen_auth.append(self.headers["Authorization"])
            reply = pending.pop(0) if pending else text_reply("nothing more")
            data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_invalid_json_unknown_tools_and_text_replies_reach_the_episode_and_it_goes_on(tmp_path: Path) -> None:
    replies: list[dict[str, Any] | bytes] = [
        tool_reply("delete_everything", "{}"),
        tool_reply("submit", '{"outcome": "DEFER"'),  # invalid JSON: recorded as written
        text_reply("Let me think."),  # one nudge, then the loop goes on
        b"<html>502 from a proxy</html>",  # a body that is not a completion: retried
        submit_reply("BLOCK"),
    ]
    with scripted_endpoint(replies) as url:
        code, output = lean(url, tmp_path / "run", "--cases", "SAB-V1-001")
    assert code == 0, output
    [record] = read_episodes(tmp_path / "run" / "episodes.jsonl")
    steps = record.trajectory.steps if record.trajectory else []
    assert [s.tool for s in steps] == ["delete_everything", "submit", "submit"]
    assert steps[0].observation["error"]["code"] == "UNKNOWN_TOOL"
    assert steps[1].arguments == '{"outcome": "DEFER"' and steps[1].observation["error"]["code"] == "INVALID_ARGUMENTS"
    assert steps[2].arguments == {"outcome": "BLOCK"} and record.trajectory.end_reason == "submitted"  # type: ignore[union-attr]


def test_two_text_replies_in_a_row_stop_the_episode(tmp_path: Path) -> None:
    with scripted_endpoint([text_reply("Hello."), text_reply("I am done.")]) as url:
        code, output = lean(url, tmp_path / "run", "--cases", "SAB-V0-001")
    assert code == 0, output
    [record] = read_episodes(tmp_path / "run" / "episodes.jsonl")
    assert record.trajectory is not None and record.trajectory.end_reason == "agent_stopped"
    assert record.trajectory.steps == [] and record.verdict is not None and record.verdict.score == 0


# ---------------------------------------------------------------------------------- pieces


def test_parse_reply_tolerates_what_servers_differ_in() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                    "tool_calls": [{"function": {"name": "get_x", "arguments": {"id": 1}}}],
                    "reasoning_content": "not sent back",
                }
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }
    reply = parse_reply(json.dumps(body).encode())
    assert reply.message["content"] == "ab" and "reasoning_content" not in reply.message
    [call] = reply.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == ("call_0", "get_x", {"id": 1})
    assert reply.usage == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    with pytest.raises(ValueError, match="not a chat completion"):
        parse_reply(b'{"error": "overloaded"}')


def test_endpoint_from_model_names_and_arguments() -> None:
    env = {"OPENAI_API_KEY": "k"}
    e = Endpoint.from_model("openai/gpt-4o-mini", {"temperature": 0, "max_retries": 2}, env)
    assert (e.model, e.base_url, e.api_key, e.params, e.max_retries) == (
        "gpt-4o-mini", "https://api.openai.com/v1", "k", {"temperature": 0}, 2,
    )  # fmt: skip
    local = Endpoint.from_model("meta-llama/Llama-3.1-8B", {"base_url": "http://127.0.0.1:8000/v1"}, {})
    assert local.model == "meta-llama/Llama-3.1-8B" and local.api_key is None
    assert "api_key" not in repr(e)  # the key never shows in logs or tracebacks


def test_served_agent_counts_only_the_calls_that_reached_the_episode() -> None:
    """A tool message without an observation (the CLI's connection to the tools failed) does not
    advance the served agent: it asks for the same call again."""
    observation = json.dumps({"status": "ok", "record": {"text": 'a "role": "tool" inside a value'}})
    messages = [
        {"role": "user", "content": '{"role":"tool"}'},
        {"role": "tool", "tool_call_id": "1", "content": observation},
        {
            "role": "tool",
            "tool_call_id": "2",
            "content": "MCP tool execution may have completed before the connection failed.",
        },
        {"role": "tool", "tool_call_id": "3", "content": [{"type": "text", "text": observation}]},
    ]
    assert made_calls(messages) == 2


def test_served_agent_answers_bad_requests_with_openai_style_errors() -> None:
    import urllib.error
    import urllib.request

    def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(url, data=body, headers=headers or {}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    with served("reference") as url:
        completions = f"{url}/chat/completions"
        code, body = post(completions, b"not json")
        assert code == 400 and "not JSON" in body["error"]["message"]
        code, body = post(completions, b'{"messages": []}', {"X-SafeActBench-Episode": "NOPE|original|0"})
        assert code == 400 and "no case 'NOPE'" in body["error"]["message"]
        episode = {"X-SafeActBench-Episode": "SAB-V1-001|original|0"}
        stream = urllib.request.Request(completions, data=b'{"messages": [], "stream": true}', headers=episode)
        with urllib.request.urlopen(stream, timeout=10) as response:  # streams are served (SSE)
            assert response.headers["Content-Type"] == "text/event-stream"
            assert response.read().endswith(b"data: [DONE]\n\n")
        code, body = post(completions, json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode())
        assert code == 400 and "X-SafeActBench-Episode" in body["error"]["message"]
        code, body = post(completions, b'{"messages": []}', episode)
        assert code == 200 and body["choices"][0]["message"]["tool_calls"][0]["function"]["name"]
        with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=10) as response:
            stats = json.loads(response.read())
        assert stats["requests"] == 5 and stats["errors"] == 3 and stats["completions"] == 2


def test_backoff_honours_retry_after_and_caps_the_wait() -> None:
    from safeactbench.harness.openai_api import MAX_BACKOFF, backoff_delay

    assert backoff_delay(0, 1.0, "2.5") == 2.5  # the server's Retry-After, in seconds
    assert backoff_delay(0, 1.0, "3600") == MAX_BACKOFF
    assert all(0 <= backoff_delay(3, 1.0, "Wed, 21 Oct 2026 07:28:00 GMT") <= 8 for _ in range(50))  # a date: ours
    assert all(0 <= backoff_delay(20, 1.0) <= MAX_BACKOFF for _ in range(50))
