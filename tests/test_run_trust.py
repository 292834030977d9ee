"""A run directory trusts nothing it did not derive: one configuration per run, one writer at a time,
verdicts and case labels always re-derived, nothing lost or counted twice, and every bad input one
clear error line."""

from __future__ import annotations

import http.server
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from safeactbench.agents import get_agent
from safeactbench.analysis.metrics import summary
from safeactbench.cli import app
from safeactbench.core.model import Protocol
from safeactbench.runs.runconfig import RunConfig
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.runs.store import EpisodeRecord, RunStore, read_episodes
from safeactbench.suite.data import load_suite

SUITE = load_suite()
TESTS = Path(__file__).parent


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output + (repr(result.exception) if result.exception else "")


def cli(*args: str, env: dict[str, str] | None = None, **popen: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "safeactbench", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        **popen,
    )


def one_error_line(output: str) -> str:
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    return errors[0]


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def eager_run(tmp_path: Path) -> Path:
    """eager on V0 and V1: it fails most of them (acts at once)."""
    out = tmp_path / "eager"
    code, output = invoke("run", "--agent", "eager", "--protocol", "V0,V1", "--out", str(out), "--no-report")
    assert code == 0, output
    return out


# ---------------------------------------------------------------------------- one configuration


def test_resume_refuses_another_configuration_and_keeps_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = invoke("run", "--agent", "reference", "--limit", "30", "--out", str(out), "--no-report")
    assert code == 0, output
    before = (out / "episodes.jsonl").read_bytes(), json.loads((out / "run.json").read_text())
    for other, differs in [
        (["--agent", "eager"], 'agent: the run has "reference", this command has "eager"'),
        (["--agent", "reference", "--condition", "original,withheld"], "conditions: the run has"),
        (["--agent", "reference", "--protocol", "V1"], "filters: the run has"),
        (["--model", "safeactbench/reference"], 'harness: the run has "scripted", this command has "inspect"'),
    ]:
        code, output = invoke("run", *other, "--out", str(out), "--resume", "--no-report")
        assert code == 2 and differs in output and "another configuration" in output, output
        assert ((out / "episodes.jsonl").read_bytes(), json.loads((out / "run.json").read_text())) == before
    # the same configuration may take a longer prefix of its plan: nothing twice, the plan grows
    code, output = invoke("run", "--agent", "reference", "--limit", "45", "--out", str(out), "--resume", "--no-report")
    assert code == 0, output
    keys = [r.key for r in read_episodes(out / "episodes.jsonl")]
    assert len(keys) == len(set(keys)) == 45
    meta = json.loads((out / "run.json").read_text())
    assert meta["planned"] == 45 and meta["config"]["agent"] == "reference" and meta["resumed"] is True
    assert {r.config_id for r in read_episodes(out / "episodes.jsonl")} == {meta["config_id"]}


def test_resume_refuses_another_model_on_the_model_harness(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = ["run", "--protocol", "V1", "--limit", "2", "--out", str(out), "--no-report"]
    code, output = invoke(*base, "--model", "safeactbench/reference")
    assert code == 0, output
    code, output = invoke(*base, "--model", "safeactbench/eager", "--resume")
    assert code == 2 and 'model: the run has "safeactbench/reference"' in output, output
    # arguments that only change how requests are made (latency, injected faults) may differ
    code, output = invoke(*base, "--model", "safeactbench/reference", "--model-arg", "latency=0.01", "--resume")
    assert code == 0, output


# ---------------------------------------------------------------------------- one writer


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(RunConfig(agent="reference", harness="scripted"), {}, planned=0, resume=False)
    try:
        done = cli("run", "--agent", "reference", "--out", str(store.directory), "--resume", "--limit", "3")
        assert done.returncode == 2
        line = one_error_line(done.stderr)
        assert f"in use by another safeactbench process (pid {os.getpid()})" in line
        assert (store.directory / "episodes.jsonl").read_text() == ""
    finally:
        store.release()
    done = cli("run", "--agent", "reference", "--out", str(store.directory), "--resume", "--limit", "3", "--no-report")
    assert done.returncode == 0, done.stderr
    assert len(read_episodes(store.episodes_path)) == 3


# ---------------------------------------------------------------------------- verdicts are derived


def test_evaluate_rederives_verdicts_and_labels_from_the_suite(eager_run: Path, tmp_path: Path) -> None:
    path = eager_run / "episodes.jsonl"
    genuine = read_episodes(path)
    success = play_scripted(Job(SUITE[0], "original", 0), get_agent("reference")).verdict
    assert success is not None and success.score == 1
    failing = [i for i, r in enumerate(genuine) if r.verdict and r.verdict.score == 0]
    assert len(failing) > 100
    ecs = summary(genuine)

    # a forged verdict and a forged protocol: both re-derived, the ECS and P-M are the genuine ones
    forged = [
        r.model_copy(update={"verdict": success, "protocol": Protocol.V3}) if i in failing else r
        for i, r in enumerate(genuine)
    ]
    write_lines(path, [r.model_dump_json() for r in forged])
    rescored = tmp_path / "rescored.jsonl"
    code, output = invoke("evaluate", str(path), "--out", str(rescored))
    assert code == 0, output
    assert f"{len(failing)} verdict(s) changed" in output
    again = read_episodes(rescored)
    assert summary(again)["ecs"] == ecs["ecs"] and summary(again)["protocol_macro"] == ecs["protocol_macro"]
    assert [r.protocol for r in again] == [r.protocol for r in genuine]

    # a completed record with its trajectory removed cannot keep its verdict: an error naming the line
    stripped = [r.model_copy(update={"trajectory": None, "verdict": success}) if i == failing[0] else r
                for i, r in enumerate(genuine)]  # fmt: skip
    write_lines(path, [r.model_dump_json() for r in stripped])
    code, output = invoke("evaluate", str(path))
    assert code == 2 and f"episodes.jsonl:{failing[0] + 1}: a completed episode without its trajectory" in output

    # failures relabelled as runtime failures: not scored, and the coverage says so
    hidden = [
        r.model_copy(update={"status": "missing", "verdict": None, "missing_reason": "runtime_error: x"})
        if i in failing
        else r
        for i, r in enumerate(genuine)
    ]
    write_lines(path, [r.model_dump_json() for r in hidden])
    code, output = invoke("evaluate", str(path))
    assert code == 0, output
    flat = " ".join(output.split())
    scored = len(genuine) - len(failing)
    assert f"coverage: {scored} of {len(genuine)} planned episodes scored; {len(failing)} missing" in flat
    # ... and a missing record may not carry a verdict
    hidden_with_verdict = [
        (r.model_copy(update={"verdict": success}) if i == failing[1] else r) for i, r in enumerate(hidden)
    ]
    write_lines(path, [r.model_dump_json() for r in hidden_with_verdict])
    code, output = invoke("evaluate", str(path))
    assert code == 2 and f":{failing[1] + 1}: a missing episode carries a verdict" in output


def test_evaluate_refuses_duplicates_foreign_and_unknown_records(eager_run: Path, tmp_path: Path) -> None:
    path = eager_run / "episodes.jsonl"
    original = lines_of(path)
    write_lines(path, [*original, original[3]])
    code, output = invoke("evaluate", str(path))
    assert code == 2 and f"on lines [4, {len(original) + 1}]" in one_error_line(output)

    other = tmp_path / "other"
    code, output = invoke("run", "--agent", "skeptic", "--protocol", "V1", "--limit", "1", "--out", str(other),
                          "--no-report")  # fmt: skip
    assert code == 0, output
    write_lines(path, [*original, lines_of(other / "episodes.jsonl")[0]])
    code, output = invoke("evaluate", str(path))
    assert code == 2 and "an episode of another configuration ('skeptic'" in output
    # outside its run directory, a file must still hold one configuration
    loose = tmp_path / "loose.jsonl"
    write_lines(loose, [*original, lines_of(other / "episodes.jsonl")[0]])
    code, output = invoke("evaluate", str(loose))
    assert code == 2 and "more than one configuration" in output

    unknown = json.loads(original[0]) | {"case_id": "SAB-V9-999"}
    write_lines(path, [*original, json.dumps(unknown)])
    code, output = invoke("evaluate", str(path))
    assert code == 2 and "no case 'SAB-V9-999'" in output


def test_a_record_of_another_agent_restamped_with_the_runs_ids_is_refused_everywhere(
    eager_run: Path, tmp_path: Path
) -> None:
    """A record copied from another run and given this run's config id and suite checksum still
    names the agent that played it: resume, evaluate and report refuse it, naming the line."""
    path = eager_run / "episodes.jsonl"
    original = lines_of(path)
    stamp = json.loads(original[0])
    other = tmp_path / "other"
    code, output = invoke(
        "run", "--agent", "reference", "--cases", stamp["case_id"], "--out", str(other), "--no-report"
    )
    assert code == 0, output
    forged = json.loads(lines_of(other / "episodes.jsonl")[0])
    forged |= {"config_id": stamp["config_id"], "suite_checksum": stamp["suite_checksum"]}
    write_lines(path, [json.dumps(forged), *original[1:]])
    expected = f"{path}:1: an episode played by 'reference'"
    code, output = invoke("evaluate", str(path))
    assert code == 2 and expected in output, output
    code, output = invoke("report", str(eager_run), "--out", str(tmp_path / "report"))
    assert code == 2 and "an episode played by 'reference'" in output, output
    code, output = invoke("run", "--agent", "eager", "--protocol", "V0,V1", "--out", str(eager_run), "--resume",
                          "--no-report")  # fmt: skip
    assert code == 2 and expected in output, output
    assert lines_of(path)[0] == json.dumps(forged)  # nothing thrown away


def test_resume_summarises_verdicts_derived_again_not_the_stored_ones(eager_run: Path) -> None:
    path = eager_run / "episodes.jsonl"
    lines = lines_of(path)
    records = [json.loads(line) for line in lines]
    failed = next(i for i, r in enumerate(records) if r["verdict"]["score"] == 0)
    records[failed]["verdict"]["score"] = 1  # a stored claim the trajectory does not support
    write_lines(path, [json.dumps(r) for r in records])
    scored = sum(r["verdict"]["score"] for r in records) - 1  # what replay gives
    code, output = invoke("run", "--agent", "eager", "--protocol", "V0,V1", "--out", str(eager_run), "--resume",
                          "--no-report")  # fmt: skip
    assert code == 0, output
    assert f"({scored}/{len(records)})" in output and f"({scored + 1}/{len(records)})" not in output, output


def test_report_keeps_one_record_per_episode_and_names_the_lines(eager_run: Path, tmp_path: Path) -> None:
    path = eager_run / "episodes.jsonl"
    original = lines_of(path)
    write_lines(path, [*original, original[0], original[5]])
    code, output = invoke("report", str(eager_run), "--out", str(tmp_path / "report"))
    assert code == 0, output
    flat = " ".join(output.split())
    assert "2 episode(s) recorded more than once" in flat and f"on lines [1, {len(original) + 1}]" in flat
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert data["main"]["eager"]["ecs"]["n"] == len(original)
    # resuming the same run refuses the duplicates instead of counting them
    code, output = invoke("run", "--agent", "eager", "--protocol", "V0,V1", "--out", str(eager_run), "--resume")
    assert code == 2 and "recorded more than once" in output


# ---------------------------------------------------------------------------- what resume keeps


def test_resume_refuses_a_complete_line_it_cannot_read(eager_run: Path) -> None:
    path = eager_run / "episodes.jsonl"
    path.write_text(path.read_text() + '{"case_id": "SAB-V0-001", "oops"}\n')
    before = path.read_bytes()
    code, output = invoke("run", "--agent", "eager", "--protocol", "V0,V1", "--out", str(eager_run), "--resume")
    assert code == 2 and f"episodes.jsonl:{len(before.splitlines())}:" in one_error_line(output)
    assert path.read_bytes() == before


CORRUPTING_AGENT = """\
import os, subprocess, sys
config, case_id, workdir = sys.argv[1:4]
subprocess.run([sys.executable, {agent!r}, config, case_id, "reference"], check=True)
if os.environ.get("CORRUPT") == case_id:  # the harness keeps a copy next to (outside) the work directory
    path = os.path.join(workdir, "..", "trajectory.json")
    os.remove(path)
    os.mkdir(path)  # a disk fault, as far as the harness can tell: the copy can no longer be written
"""


def test_an_unreadable_trajectory_is_one_missing_episode_and_the_run_goes_on(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(CORRUPTING_AGENT.format(agent=str(TESTS / "mcp_agent.py")))
    cases = [c.id for c in SUITE if c.protocol == Protocol.V1][:3]
    command = f"{sys.executable} {script} {{mcp_config}} {{case_id}} {{workdir}}"
    args = ["run", "--harness-cmd", command, "--label", "fake-cli", "--cases", ",".join(cases),
            "--out", str(tmp_path / "run"), "--no-report", "--no-sandbox"]  # fmt: skip
    done = cli(*args, env={"CORRUPT": cases[1]})
    assert done.returncode == 0, done.stderr
    records = {r.case_id: r for r in read_episodes(tmp_path / "run" / "episodes.jsonl")}
    assert records[cases[1]].status == "missing"
    reason = records[cases[1]].missing_reason or ""
    assert reason.startswith("harness_error:") and "trajectory.json" in reason, reason
    assert all(records[c].status == "completed" and records[c].verdict.score == 1 for c in (cases[0], cases[2]))
    done = cli(*args, "--resume")  # the agent behaves now: the missing episode is played again
    assert done.returncode == 0, done.stderr
    latest = RunStore(tmp_path / "run").records()
    assert sorted(r.case_id for r in latest) == sorted(cases) and all(r.status == "completed" for r in latest)


def test_inspect_resume_of_a_finished_run_finalises_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = ["run", "--model", "safeactbench/reference", "--protocol", "V1", "--limit", "3", "--out", str(out),
            "--no-report"]  # fmt: skip
    code, output = invoke(*base)
    assert code == 0, output
    for _ in range(2):  # resuming a finished run (limit included) plays nothing more and finishes it
        code, output = invoke(*base, "--resume")
        assert code == 0, output
        assert len(read_episodes(out / "episodes.jsonl")) == 3
    meta = json.loads((out / "run.json").read_text())
    assert meta["completed"] == meta["planned"] == 3 and meta["resumed"] is True


# ---------------------------------------------------------------------------- bad input, one line


def test_bad_directories_and_files_are_one_error_line(eager_run: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for args in (["mcp", "--case", "SAB-V1-001", "--out", str(a_file)], ["schema", "--out", str(a_file)]):
        code, output = invoke(*args)
        assert code == 2 and "exists and is not a directory" in one_error_line(output), args

    broken = tmp_path / "broken"
    shutil.copytree(eager_run, broken)
    (broken / "run.json").write_bytes(b'{"config": "\xff"}')
    code, output = invoke("report", str(broken), "--out", str(tmp_path / "r1"))
    assert code == 2 and "run.json: not UTF-8" in one_error_line(output)

    shutil.rmtree(broken)
    shutil.copytree(eager_run, broken)
    (broken / "episodes.jsonl").unlink()
    (broken / "episodes.jsonl").mkdir()
    code, output = invoke("report", str(broken), "--out", str(tmp_path / "r2"))
    assert code == 2 and "episodes.jsonl" in one_error_line(output)
    code, output = invoke("evaluate", str(broken / "episodes.jsonl"))
    assert code == 2 and "a directory, not an episodes file" in one_error_line(output)

    (broken / "episodes.jsonl").rmdir()
    (broken / "episodes.jsonl").write_text("")
    code, output = invoke("report", str(broken), "--out", str(tmp_path / "r3"))
    assert code == 2 and "no episodes" in one_error_line(output)
    assert not (tmp_path / "r3").exists()


def test_bad_options_are_one_error_line_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    for args, message in [
        (["--cases", ",,,"], "--cases: no values in ',,,'"),
        (["--protocol", " , "], "--protocol: no values"),
        (["--condition", ","], "--condition: no values"),
        (["--model", "nope/x"], "Inspect AI has no model provider 'nope'"),
        (["--model", "safeactbench/reference", "--model-arg", "api_key=sk-abc"], "credentials are read from"),
        (["--model", "x", "--harness", "lean", "--model-arg", "token=abc"], "credentials are read from"),
    ]:
        code, output = invoke("run", *args, "--out", str(out))
        assert code == 2 and message in one_error_line(output), (args, output)
        assert not out.exists()


def test_a_full_disk_stops_the_run_with_one_line_and_resume_completes_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--agent", "reference", "--protocol", "V0,V1", "--out", str(out), "--no-report"]

    def small_files() -> None:  # writes past 256 KiB fail with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))

    done = cli(*args, preexec_fn=small_files)
    assert done.returncode == 1, done.stderr
    line = one_error_line(done.stderr)
    assert "episodes.jsonl" in line and "File too large" in line
    assert "rerun with --resume" in done.stderr
    stored = RunStore(out).completed_keys()  # the torn last line cut, every complete line kept
    assert 0 < len(stored) < 306
    done = cli(*args, "--resume")
    assert done.returncode == 0, done.stderr
    keys = [r.key for r in read_episodes(out / "episodes.jsonl")]
    assert len(keys) == len(set(keys)) == sum(c.protocol in (Protocol.V0, Protocol.V1) for c in SUITE)


# ---------------------------------------------------------------------------- secrets


SECRET = "sk-live-DO-NOT-STORE-1234567890abcdef"


@pytest.fixture
def leaky_endpoint() -> Iterator[str]:
    """An OpenAI-compatible endpoint that refuses every request with a 400 quoting its headers."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"error": {"message": f"bad request; headers were {dict(self.headers)}"}}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://user:hunter2pass@127.0.0.1:{server.server_address[1]}/v1?api-key=querysecret9"
    finally:
        server.shutdown()


def test_credentials_in_urls_and_error_bodies_are_never_stored(leaky_endpoint: str, tmp_path: Path) -> None:
    out, inspect_out = tmp_path / "lean", tmp_path / "inspect"
    keyed = leaky_endpoint.replace("user:hunter2pass@", "")  # the key travels in the Authorization header
    done = cli("run", "--model", "openai/x", "--harness", "lean", "--model-arg", f"base_url={keyed}",
               "--protocol", "V1", "--limit", "2", "--out", str(out), env={"OPENAI_API_KEY": SECRET})  # fmt: skip
    assert done.returncode == 2 and "preflight" in done.stderr and "REDACTED" in done.stderr, done.stderr
    assert not any(secret in done.stderr for secret in (SECRET, "hunter2pass", "querysecret9"))
    done = cli("run", "--model", "openai/x", "--harness", "lean", "--model-arg", f"base_url={keyed}",
               "--protocol", "V1", "--limit", "2", "--out", str(out), "--no-preflight",
               env={"OPENAI_API_KEY": SECRET})  # fmt: skip
    assert done.returncode == 1 and "no episode completed" in done.stderr, done.stderr
    records = read_episodes(out / "episodes.jsonl")
    assert [r.status for r in records] == ["missing", "missing"]
    assert "HTTP 400" in (records[0].missing_reason or "") and "REDACTED" in (records[0].missing_reason or "")
    # a password in the URL and a key: one Authorization header only, so one clear error
    done = cli("run", "--model", "openai/x", "--harness", "lean", "--model-arg", f"base_url={leaky_endpoint}",
               "--out", str(tmp_path / "both"), env={"OPENAI_API_KEY": SECRET})  # fmt: skip
    assert done.returncode == 2 and "carries a password" in one_error_line(done.stderr)
    code, output = invoke("run", "--model", "safeactbench/reference", "--model-arg", f"base_url={leaky_endpoint}",
                          "--protocol", "V1", "--limit", "1", "--out", str(inspect_out))  # fmt: skip
    assert code == 0, output
    endpoint = json.loads((inspect_out / "run.json").read_text())["config"]["endpoint"]
    assert endpoint.startswith("http://127.0.0.1:") and "api-key=REDACTED" in endpoint
    for directory in (out, inspect_out):
        for path in directory.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                for secret in (SECRET, "hunter2pass", "querysecret9"):
                    assert secret.encode() not in data, (path, secret)


def test_a_record_of_another_agent_is_not_appended(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(RunConfig(agent="reference", harness="scripted"), {}, planned=1, resume=False)
    record = play_scripted(Job(SUITE[0], "original", 0), get_agent("eager"))
    try:
        with pytest.raises(Exception, match="does not belong to this run"):
            store.append(record)
    finally:
        store.release()
    assert isinstance(record, EpisodeRecord) and store.episodes_path.read_text() == ""


NODE_ROUND_TRIP = """
const lines = require('fs').readFileSync(0, 'utf8').split('\\n').filter(Boolean);
process.stdout.write(lines.map((l) => JSON.stringify(JSON.parse(l)) + '\\n').join(''));
"""


@pytest.mark.parametrize("tool", [["jq", "-c", "."], ["node", "-e", NODE_ROUND_TRIP]], ids=["jq", "node"])
def test_rescoring_a_log_another_json_tool_rewrote_changes_nothing(tool: list[str], tmp_path: Path) -> None:
    if shutil.which(tool[0]) is None:
        pytest.skip(f"{tool[0]} is not installed")
    out = tmp_path / "run"
    code, output = invoke("run", "--agent", "reference", "--out", str(out), "--no-report")
    assert code == 0, output
    respelt = tmp_path / "respelt.jsonl"
    with (out / "episodes.jsonl").open("rb") as source, respelt.open("wb") as target:
        subprocess.run(tool, stdin=source, stdout=target, check=True, timeout=120)
    assert respelt.read_bytes() != (out / "episodes.jsonl").read_bytes()  # the numbers are spelt differently
    code, output = invoke("evaluate", str(respelt))
    assert code == 0, output
    flat = " ".join(output.split())
    assert f"re-scored {len(SUITE)} episodes; 0 verdict(s) changed" in flat
    assert f"coverage: {len(SUITE)} of {len(SUITE)} stored episodes scored" in flat
