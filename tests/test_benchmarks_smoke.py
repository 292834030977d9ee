"""Smoke test of `python -m benchmarks` (issue 8): every measurement at a tiny size, so the benchmark
keeps working. It asserts the structure of the results, never wall-clock limits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import (  # noqa: E402
    PARTS,
    cli_harnesses,
    concurrency,
    tooling,
)
from benchmarks import measure as m  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402
from benchmarks.machine import machine  # noqa: E402
from benchmarks.report import TARGETS, render  # noqa: E402


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and value > 0


def test_evaluator_and_episode_overhead_tiny() -> None:
    ev = m.evaluator_throughput(6, repeats=1)
    assert ev["cases"] == 6 and ev["all_success"] is True
    assert all(_positive(ev[k]) for k in ("cases_per_s", "us_per_step", "us_per_case", "from_json_cases_per_s"))
    ep = m.episode_overhead(6, repeats=1)
    assert ep["episodes"] == 6
    assert _positive(ep["us_per_new_episode"]) and _positive(ep["in_process_ms_per_episode"])
    assert ep["calls"]["new_episode"] == 6 and sum(ep["calls"].values()) > 6


def test_a_commands_peak_memory_is_its_own_not_the_benchmarks() -> None:
    """Linux counts, in a child's peak RSS, the peak of the process that spawned it: a benchmark
    holding 300 MB must still measure a small command as small (it goes through a fresh launcher)."""
    ballast = bytearray(300 * 1024 * 1024)  # touched: resident in this process
    ballast[::4096] = b"x" * len(ballast[::4096])
    small = tooling.run_measured([sys.executable, "-c", "pass"]).check()
    assert 0 < small.max_rss_mb < 100
    big = tooling.run_measured(
        [sys.executable, "-c", "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"]
    )
    assert 200 < big.check().max_rss_mb < 300  # and a large one as large
    late = tooling.run_measured([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert late.timed_out and late.returncode != 0
    del ballast


def test_end_to_end_tiny() -> None:
    e2e = m.end_to_end(1, cases="SAB-V1-001", heavy=(1, 2))
    for run in (e2e, e2e["no_report"]):
        assert run["episodes"] == 1 and run["successes"] == 1
        assert _positive(run["wall_s"]) and _positive(run["peak_rss_mb"])
    assert e2e["heavy"]["episodes"] == 2 and _positive(e2e["heavy"]["peak_rss_mb"])
    assert [run["episodes"] for run in e2e["heavy_runs"]] == [1, 2] and _positive(e2e["rss_growth"])


def test_inspect_path_tiny() -> None:
    out = m.inspect_path(cases="SAB-L-001,SAB-V1-001")
    for label in ("scripted", "inspect"):
        assert out[label]["episodes"] == 2 and out[label]["successes"] == 2
        assert _positive(out[label]["peak_rss_mb"])
    assert isinstance(out["ratio"], float)


def test_cli_harnesses_tiny() -> None:
    from test_family_cli import require_cli

    require_cli("codex-cli")  # bubblewrap, and the family harness's checks of its CLI
    out = cli_harnesses.cli_harnesses(cases="SAB-L-001,SAB-V1-001,SAB-V2-033", with_codex=False)
    for path in ("react", "command_thin", "family_thin"):
        assert out[path]["episodes"] == out[path]["successes"] == 3, (path, out[path])
        assert out[path]["steps"] > 3 and _positive(out[path]["first_s"])
    for path in ("command_thin", "family_thin"):
        assert isinstance(out[path]["per_episode_s"], float) and isinstance(out[path]["per_step_s"], float)
        assert _positive(out[path]["mean_ratio"]) and _positive(out[path]["turn_mean_s"])
        assert out[path]["turns"] == out[path]["steps"]  # one turn per call: the CLI's clock saw every step
    assert "command_codex" not in out and "family_concurrency" not in out
    assert "### CLI harnesses" in render({**_results_frame(), "cli": out}, None, "python -m benchmarks")


def _results_frame() -> dict[str, object]:
    return {"generated_at": "now", "elapsed_s": 1.0, "machine": machine(2), "load": {}}


def test_concurrency_tiny() -> None:
    # the lean loop with the reference agent: the Inspect path has its own smoke test
    # (test_inspect_path_tiny), and the measurement code is the same for every workload
    workloads = [w for w in concurrency.QUICK_WORKLOADS if w.harness == "lean" and w.agent == "reference"]
    out = concurrency.concurrency((1, 2), workloads=workloads, cases=2, latency=0.01, jitter=0.0)
    for workload in workloads:
        rows = out["runs"][workload.name]["levels"]
        assert [row["concurrency"] for row in rows] == [1, 2]
        for row in rows:
            assert row["completed"] == row["episodes"] == 2 * row["concurrency"]
            assert row["peak_in_flight"] >= 1 and row["server_errors"] == 0
            assert row["requests"] >= row["completed"] and _positive(row["throughput_eps"])
        # the reference agent scores every episode through either harness
        if workload.agent == "reference":
            assert all(row["successes"] == row["completed"] for row in rows)
        assert _positive(rows[1]["efficiency"]) and _positive(rows[1]["utilisation"])
        assert rows[0]["latency_ratio"] == 1.0


def test_bootstrap_tiny() -> None:
    out = m.bootstrap_stats(configs=3, cases=20, resamples=100, repeats=1)
    assert out["pairs"] == 3 and out["cases"] == 20
    assert _positive(out["seconds"]) and _positive(out["numpy_reference_seconds"])


def test_prompt_tokens_tiny() -> None:
    from benchmarks.prompt_tokens import prompt_tokens

    result = prompt_tokens(12)
    rows = result["by_protocol"]
    assert set(rows) == {"Legacy", "V0", "V1", "V2", "V3"}
    for protocol, row in rows.items():
        assert row["first_request"] == pytest.approx(row["tools"] + row["system"] + row["task"])
        assert row["per_episode"] >= row["first_request"] and 0 < row["cacheable_share"] < 1
        if protocol != "Legacy":  # an interactive tool list outweighs the prompts, as measured
            assert row["tools"] > row["system"] + row["task"]


def test_report_and_command_line(tmp_path: Path) -> None:
    out, raw = tmp_path / "perf.md", tmp_path / "perf.json"
    assert main(["--quick", "--only", "evaluator,episode,stats", "--out", str(out), "--json", str(raw)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## Machine" in text and "## Targets" in text and "### Evaluator throughput" in text
    results = json.loads(raw.read_text(encoding="utf-8"))
    assert {"machine", "evaluator", "episode", "stats"} <= set(results)
    rendered = tmp_path / "again.md"
    assert main(["--render", str(raw), "--out", str(rendered)]) == 0
    assert rendered.read_text(encoding="utf-8").split("\n")[4:] == text.split("\n")[4:]
    # a baseline renders as the 'before' column; missing parts render as dashes
    assert "| – |" in render(results, results, "python -m benchmarks")
    assert len(TARGETS) == 13 and set(PARTS) >= {"evaluator", "concurrency"}
    assert machine(2)["cores"]


def test_fast_case_checksum_is_byte_identical() -> None:
    """The performance fix in `suite/data.py` (tool lists serialised once per domain) must not change
    a single digest: compare with hashing the full canonical dump, and with the published manifest."""
    import hashlib

    from safeactbench.suite.catalog import CONDITIONS, get_case
    from safeactbench.suite.data import canonical_json, case_sha256, load_suite, suite_manifest

    suite = list(load_suite())
    manifest = suite_manifest()["sha256"]
    assert all(manifest[c.id] == case_sha256(c) for c in suite)
    variants = [get_case(c.id, cond) for c in suite[::7] if c.protocol.value == "V1" for cond in CONDITIONS]
    for case in [*suite[::5], *variants]:
        plain = hashlib.sha256(canonical_json(case.model_dump(mode="json")).encode()).hexdigest()
        assert case_sha256(case) == plain, case.id


def test_findings_quote_current_numbers_from_the_results_they_are_rendered_with() -> None:
    from benchmarks.report import NOTES, PLACEHOLDER, filled, unfilled

    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    notes = NOTES.read_text(encoding="utf-8")
    assert PLACEHOLDER.search(notes)  # the notes quote current numbers this way
    assert unfilled(notes, results) == []  # every path names a number of the committed results
    assert not PLACEHOLDER.search(filled(notes, results))
    level = {"concurrency": 64, "efficiency": 0.5}
    changed = {**results, "concurrency": {"runs": {"lean": {"levels": [level]}}}}
    assert filled("{{concurrency.runs.lean.levels[concurrency=64].efficiency|pct}}", changed) == "50%"
    assert filled("{{concurrency.runs.nowhere.efficiency|pct}}", results) == "–"  # a part not measured
    assert unfilled("{{concurrency.runs.nowhere.efficiency|pct}}", results) == ["concurrency.runs.nowhere.efficiency"]
