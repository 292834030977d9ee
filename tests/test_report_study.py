"""Every section that reproduces a table or figure of the study (../shared/spec/STUDY.md, mapped in
docs/report.md) against an independent computation: plain Python and numpy over the raw lines of
the run directories' episodes.jsonl, never the analysis code.

The fixture: twelve cases (every protocol, two domains), played by `reference` and `eager`
in-process and by `safeactbench/reference` through Inspect with its first tool call of every episode
lost (`misroute=1`, so it fails where the in-process agent succeeds), each in the original condition,
the stop twins and the static rendering (the scripted agents also under the probes); `credulous`
too; two repetitions for the reference pair.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from safeactbench.analysis.command import report
from safeactbench.cli import app

CASES = ("SAB-L-001,SAB-L-074,SAB-V0-001,SAB-V0-150,SAB-V1-001,SAB-V1-002,SAB-V1-113,SAB-V1-114,"
         "SAB-V2-001,SAB-V2-113,SAB-V3-001,SAB-V3-113")  # fmt: skip
CONDITIONS = (
    "original,withheld,contradicted,static,evidence_package,requester_claim,distractors,"
    "withheld+distractors,package+distractors"
)
RUNS = {
    "reference": ["--agent", "reference", "--repeat", "2"],
    "safeactbench/reference · inspect": [
        "--model",
        "safeactbench/reference",
        "--model-arg",
        "misroute=1",
        "--repeat",
        "2",
        "--max-concurrency",
        "32",
    ],
    "eager": ["--agent", "eager"],
    "credulous": ["--agent", "credulous"],  # acts when the requester asserts the fact
}
INTERACTIVE = ("V0", "V1", "V2", "V3")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("study")
    dirs = {}
    for n, (label, options) in enumerate(RUNS.items()):
        dirs[label] = root / f"run{n}"
        conditions = CONDITIONS if "--model" not in options else "original,withheld,contradicted"
        args = ["run", *options, "--cases", CASES, "--condition", conditions, "--out", str(dirs[label]), "--no-report"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    written = report(list(dirs.values()), root / "report", pairs="all")
    raw = {
        label: [json.loads(line) for line in (d / "episodes.jsonl").read_text().splitlines()]
        for label, d in dirs.items()
    }
    return {"data": json.loads(written["data"].read_text()), "raw": raw, "written": written}


# ----------------------------------------------------------------------- the independent side


def original(episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in episodes if e["condition"] == "original" and e["status"] == "completed"]


def case_means(episodes: list[dict[str, Any]], value: Any = lambda e: e["verdict"]["score"]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for e in episodes:
        groups[e["case_id"]].append(float(value(e)))
    return {k: sum(v) / len(v) for k, v in groups.items()}


def protocol_of(raw: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    return {e["case_id"]: e["protocol"] for eps in raw.values() for e in original(eps)}


def acted(e: dict[str, Any]) -> float:
    return float(e["verdict"]["diagnostics"]["action_attempts"] > 0)


def bootstrap_ci(values: dict[str, float], seed: int = 99, resamples: int = 4000) -> tuple[float, float]:
    """An independent percentile bootstrap over cases (another seed: compared with a tolerance)."""
    array = np.array(list(values.values()))
    draws = np.random.default_rng(seed).integers(0, len(array), size=(resamples, len(array)))
    means = array[draws].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def rate_interval(values: dict[str, float]) -> tuple[float, float]:
    """A rate's 95% interval as docs/report.md defines it: the case bootstrap, or at exactly 0 or 1
    the Wilson score interval over the n cases (written out here from its textbook formula)."""
    mean, n = statistics.fmean(values.values()), len(values)
    if 0.0 < mean < 1.0:
        return bootstrap_ci(values)
    z = 1.959963984540054
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ----------------------------------------------------------------------------------- sections


def test_t_main_and_t_domain(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label, episodes in raw.items():
        scored = original(episodes)
        row = data["main"][label]
        per_protocol = {}
        for protocol in ("Legacy", *INTERACTIVE):
            means = case_means([e for e in scored if e["protocol"] == protocol])
            per_protocol[protocol] = statistics.fmean(means.values())
            assert row["by_protocol"][protocol]["value"] == pytest.approx(per_protocol[protocol]), (label, protocol)
        per_domain = {d: statistics.fmean(case_means([e for e in scored if e["domain"] == d]).values())
                      for d in ("customer", "healthcare")}  # fmt: skip
        assert row["ecs"]["value"] == pytest.approx(statistics.fmean(case_means(scored).values()))
        assert row["protocol_macro"] == pytest.approx(statistics.fmean(per_protocol.values()))
        assert row["domain_macro"] == pytest.approx(statistics.fmean(per_domain.values()))
        for domain, value in per_domain.items():
            assert row["by_domain"][domain]["value"] == pytest.approx(value)
        low, high = rate_interval(case_means(scored))
        assert row["ecs_ci"]["low"] == pytest.approx(low, abs=0.08) and row["ecs_ci"]["high"] == pytest.approx(
            high, abs=0.08
        )


def test_t_harness_paired_comparison(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    protocols = protocol_of(raw)
    for pair in data["paired"]:
        a, b = (case_means(original(raw[pair[side]])) for side in ("a", "b"))
        common = sorted(k for k in set(a) & set(b) if protocols[k] != "Legacy")  # the interactive cases
        differences = {k: a[k] - b[k] for k in common}
        assert pair["common_cases"] == len(common)
        assert pair["delta_points"]["estimate"] == pytest.approx(100 * statistics.fmean(differences.values()))
        low, high = bootstrap_ci(differences)
        assert pair["delta_points"]["low"] == pytest.approx(100 * low, abs=8)
        assert pair["delta_points"]["high"] == pytest.approx(100 * high, abs=8)
        assert pair["ci_excludes_zero"] == (pair["delta_points"]["low"] > 0 or pair["delta_points"]["high"] < 0)
    lost = next(p for p in data["paired"] if p["b"] == "safeactbench/reference · inspect" and p["a"] == "reference")
    assert lost["delta_points"]["estimate"] > 0  # the lost first call costs the Inspect run cases


def test_t_static_gap(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label in ("reference", "eager"):
        static = case_means([e for e in raw[label] if e["condition"] == "static" and e["status"] == "completed"])
        interactive = case_means(original(raw[label]))
        pairs = sorted(set(static) & set(interactive))
        gap = data["static_gap"][label]["static vs original"]
        assert gap["pairs"] == len(pairs)
        assert gap["static_accuracy"] == pytest.approx(statistics.fmean(static[k] for k in pairs))
        assert gap["interactive_ecs"] == pytest.approx(statistics.fmean(interactive[k] for k in pairs))
        expected = 100 * statistics.fmean(static[k] - interactive[k] for k in pairs)
        assert gap["gap_points"]["estimate"] == pytest.approx(expected)


def test_t_reps_per_repetition_deltas(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    protocols = protocol_of(raw)
    [entry] = [d for d in data["repetition_deltas"] if d["a"] == "reference"]
    b = entry["b"]
    for rep, delta in enumerate(entry["deltas_points"]):
        a_scores = case_means([e for e in original(raw["reference"]) if e["repetition"] == rep])
        b_scores = case_means([e for e in original(raw[b]) if e["repetition"] == rep])
        common = [k for k in set(a_scores) & set(b_scores) if protocols[k] != "Legacy"]
        assert delta["estimate"] == pytest.approx(100 * statistics.fmean(a_scores[k] - b_scores[k] for k in common))
    estimates = [d["estimate"] for d in entry["deltas_points"]]
    assert entry["mean"] == pytest.approx(statistics.fmean(estimates))
    assert entry["sd"] == pytest.approx(statistics.stdev(estimates))
    for label in ("reference", "safeactbench/reference · inspect"):
        runs = data["repetitions"][label]["runs"]
        for rep in (0, 1):
            scores = case_means([e for e in original(raw[label]) if e["repetition"] == rep])
            [value] = [v for name, v in runs.items() if name.endswith(f"#{rep}")]
            assert value == pytest.approx(statistics.fmean(scores.values()))


def test_t_coverage_per_condition(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label, episodes in raw.items():
        completed = {c: {e["case_id"] for e in episodes if e["condition"] == c and e["status"] == "completed"}
                     for c in {e["condition"] for e in episodes}}  # fmt: skip
        for condition, cell in data["condition_coverage"][label].items():
            played = [e for e in episodes if e["condition"] == condition]
            assert cell["played"] == len(played)
            assert cell["completed"] == sum(e["status"] == "completed" for e in played)
            assert cell["paired_cases"] == len(completed.get(condition, set()) & completed["original"])


def test_f_interventions_and_extra(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    protocols = protocol_of(raw)
    for label, per_condition in data["interventions"].items():
        episodes = [e for e in raw[label] if e["status"] == "completed" and protocols.get(e["case_id"]) == "V1"]
        by_condition = {c: case_means([e for e in episodes if e["condition"] == c], acted) for c in per_condition}
        for condition, cell in per_condition.items():
            values = by_condition[condition]
            assert values, (label, condition)  # only the conditions a configuration played are listed
            assert cell["action_probability"]["estimate"] == pytest.approx(statistics.fmean(values.values()))
            if condition != "original":
                common = set(values) & set(by_condition["original"])
                expected = 100 * statistics.fmean(by_condition["original"][k] - values[k] for k in common)
                assert cell["reduction_vs_original_points"]["estimate"] == pytest.approx(expected)
                # decision transitions in repetition 1: act / stop / none, original -> condition
                first = {(e["case_id"], e["condition"]): e for e in episodes if e["repetition"] == 0}
                transitions: dict[str, int] = defaultdict(int)
                for (case_id, cond), e in first.items():
                    if cond == condition and (case_id, "original") in first:
                        transitions[f"{decision(first[(case_id, 'original')])}->{decision(e)}"] += 1
                assert cell["decision_transitions"] == dict(transitions)


def decision(e: dict[str, Any]) -> str:
    d = e["verdict"]["diagnostics"]
    return "act" if d["action_attempts"] else ("stop" if d.get("submitted") else "none")


def test_f_failures(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label, episodes in raw.items():
        for protocol, shares in data["failure_modes"][label].items():
            scored = [e for e in original(episodes) if e["protocol"] == protocol]
            for mode, share in shares.items():
                count = sum((e["verdict"]["failure_mode"] or "success") == mode for e in scored)
                assert share["value"] == pytest.approx(count / len(scored)), (label, protocol, mode)
            assert sum(s["value"] for s in shares.values()) == pytest.approx(1.0)


def test_f_effort_and_coverage_curves(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    budgets = data["effort"]["budgets"]
    for protocol, per_config in data["effort"]["curves"].items():
        for label, curve in per_config.items():
            scored = [e for e in original(raw[label]) if e["protocol"] == protocol
                      and e["verdict"]["diagnostics"]["required_reads"] > 0]  # fmt: skip
            for i, budget in enumerate(budgets):

                def within(e: dict[str, Any], budget: float = budget) -> float:
                    d = e["verdict"]["diagnostics"]
                    return float(d["evidence_complete_at_end"] and d["info_calls"] / d["required_reads"] <= budget)

                expected = statistics.fmean(case_means(scored, within).values())
                assert curve["share"][i] == pytest.approx(expected), (protocol, label, budget)
                assert curve["low"][i] <= curve["share"][i] + 1e-9 <= curve["high"][i] + 2e-9
    thresholds = data["coverage_cdf"]["thresholds"]
    for protocol, per_config in data["coverage_cdf"]["curves"].items():
        for label, curve in per_config.items():
            scored = [e for e in original(raw[label]) if e["protocol"] == protocol]
            for i, y in enumerate(thresholds):

                def share(e: dict[str, Any], y: float = y) -> float:
                    points = gate_points(e)
                    return sum(v <= y + 1e-12 for v in points) / len(points)

                expected = statistics.fmean(case_means([e for e in scored if gate_points(e)], share).values())
                assert curve["share"][i] == pytest.approx(expected), (protocol, label, y)


def gate_points(e: dict[str, Any]) -> list[float]:
    d = e["verdict"]["diagnostics"]
    if e["protocol"] in ("V2", "V3"):
        return [len(g["established"]) / max(1, len(g["established"]) + len(g["missing"])) if g["established"]
                or g["missing"] else 1.0 for g in d["gates"] if g.get("step") is not None]  # fmt: skip
    return list(d["coverage"])


def test_retrieval_effort(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label, per_protocol in data["retrieval"].items():
        for protocol, cell in per_protocol.items():
            scored = [e for e in original(raw[label]) if e["protocol"] == protocol]
            calls = case_means(scored, lambda e: e["verdict"]["diagnostics"]["info_calls"])
            assert cell["all"]["estimate"] == pytest.approx(statistics.fmean(calls.values()))
            won = case_means(
                [e for e in scored if e["verdict"]["score"] == 1], lambda e: e["verdict"]["diagnostics"]["info_calls"]
            )
            assert cell["success"]["n"] == len(won)
            if won:
                assert cell["success"]["estimate"] == pytest.approx(statistics.fmean(won.values()))


def test_f_harness_sensitivity(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    protocols = protocol_of(raw)
    assert data["sensitivity"], "pairs with evidence conditions on both sides"
    for row in data["sensitivity"]:
        reductions = []
        for side in ("a", "b"):
            episodes = [e for e in raw[row[side]] if e["status"] == "completed"
                        and protocols.get(e["case_id"]) == row["protocol"]]  # fmt: skip
            orig = case_means([e for e in episodes if e["condition"] == "original"], acted)
            cond = case_means([e for e in episodes if e["condition"] == row["condition"]], acted)
            reductions.append({k: orig[k] - cond[k] for k in set(orig) & set(cond)})
        common = set(reductions[0]) & set(reductions[1])
        assert row["cases"] == len(common)
        red_a, red_b = (statistics.fmean(r[k] for k in common) for r in reductions)
        assert row["reduction_a_points"]["estimate"] == pytest.approx(100 * red_a)
        assert row["reduction_b_points"]["estimate"] == pytest.approx(100 * red_b)
        assert row["b_minus_a_points"]["estimate"] == pytest.approx(100 * (red_b - red_a))
    # the careful agent stops without the evidence, the eager one acts anyway: a clear difference
    eager = [r for r in data["sensitivity"] if r["a"] == "reference" and r["b"] == "eager"]
    assert eager and all(r["b_minus_a_points"]["estimate"] == -100.0 for r in eager)


def test_cost(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    for label, episodes in raw.items():
        total = data["cost"][label]["total"]
        assert total["episodes"] == len(episodes)
        assert total["seconds"] == pytest.approx(sum(e["duration_s"] for e in episodes))
        with_transcript = [e for e in episodes if e.get("transcript") is not None]
        if with_transcript:
            assert total["model_calls_per_episode"] == pytest.approx(
                statistics.fmean(len(e["transcript"]) for e in with_transcript)
            )
        else:
            assert total["model_calls_per_episode"] is None and " · " not in label  # a scripted agent


def test_f_probes(study: dict[str, Any]) -> None:
    data, raw = study["data"], study["raw"]
    protocols = protocol_of(raw)
    assert set(data["probes"]) == {"reference", "eager", "credulous"}
    for label, probes in data["probes"].items():
        episodes = [e for e in raw[label] if e["status"] == "completed" and protocols.get(e["case_id"]) == "V1"]
        for probe, row in probes.items():
            base = row["baseline"]
            assert base == {"package+distractors": "evidence_package", "distractors": "original"}.get(probe, "withheld")
            per = {c: (case_means([e for e in episodes if e["condition"] == c], acted),
                       case_means([e for e in episodes if e["condition"] == c],
                                  lambda e: e["verdict"]["diagnostics"]["info_calls"]))
                   for c in (probe, base)}  # fmt: skip
            cases = set(per[probe][0]) & set(per[base][0])
            assert row["cases"] == len(cases)
            expected = statistics.fmean(per[probe][0][k] - per[base][0][k] for k in cases)
            assert row["delta_action_points"]["estimate"] == pytest.approx(100 * expected)
            calls = statistics.fmean(per[probe][1][k] - per[base][1][k] for k in cases)
            assert row["delta_info_calls"]["estimate"] == pytest.approx(calls)
    assert data["probes"]["credulous"]["requester_claim"]["delta_action_points"]["estimate"] == 100.0
