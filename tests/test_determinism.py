"""Determinism: the same suite and trajectories give byte-identical verdicts - twice, and in another
process with another hash seed - and `safeactbench run` of a scripted agent writes byte-identical
trajectories and verdicts (only timestamps and durations differ)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from itertools import islice
from pathlib import Path

from typer.testing import CliRunner

from safeactbench import audit
from safeactbench.cli import app
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.script import run_script
from safeactbench.core.trajectory import Trajectory
from safeactbench.suite.data import load_suite

SUITE = load_suite()
BY_ID = {c.id: c for c in SUITE}

SCORE_FILE = """
import json, sys
from safeactbench.core.evaluator import evaluate
from safeactbench.suite.data import load_suite
cases = {c.id: c for c in load_suite()}
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in src:
        item = json.loads(line)
        out.write(evaluate(cases[item["case_id"]], item["trajectory"]).model_dump_json() + "\\n")
"""


def trajectories() -> list[tuple[str, str]]:
    """(case id, trajectory JSON): every reference, and mutants of a sample across protocols."""
    out = []
    for case in SUITE:
        episode = Episode(case)
        run_script(episode, case.reference)
        episode.stop()
        out.append((case.id, episode.trajectory().model_dump_json()))
    for case in audit.sample_cases(SUITE, 25, seed=11):
        for _mutant, scored, played in islice(audit.mutants(case), 40):
            if scored is case:
                out.append((case.id, played.trajectory.model_dump_json()))
    return out


def verdicts(items: list[tuple[str, str]]) -> list[str]:
    return [evaluate(BY_ID[case_id], Trajectory.model_validate_json(t)).model_dump_json() for case_id, t in items]


def test_verdicts_are_byte_identical_twice_and_across_processes(tmp_path: Path) -> None:
    items = trajectories()
    first, second = verdicts(items), verdicts(items)
    assert first == second
    assert len({hashlib.sha256(v.encode()).hexdigest() for v in first}) > 100  # not trivially equal
    src, dst = tmp_path / "trajectories.jsonl", tmp_path / "verdicts.jsonl"
    src.write_text("".join(json.dumps({"case_id": c, "trajectory": t}) + "\n" for c, t in items), encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    subprocess.run([sys.executable, "-c", SCORE_FILE, str(src), str(dst)], check=True, env=env, timeout=300)
    assert dst.read_text(encoding="utf-8").splitlines() == first


# the trajectory and verdict of an episode record, as written (fields are dumped in model order)
PARTS = re.compile(rb'"trajectory":.*,"verdict":.*(?=,"started_at":)')


def episode_parts(path: Path) -> list[bytes]:
    parts = []
    for line in path.read_bytes().splitlines():
        match = PARTS.search(line)
        assert match, line[:200]
        parts.append(match.group(0))
    return parts


def test_run_writes_byte_identical_trajectories_and_verdicts(tmp_path: Path) -> None:
    args = ["run", "--agent", "random", "--protocol", "Legacy,V0,V1,V2,V3", "--no-report"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    env = {**os.environ, "PYTHONHASHSEED": "777"}
    subprocess.run(
        [sys.executable, "-m", "safeactbench", *args, "--out", str(tmp_path / "b")],
        check=True,
        env=env,
        capture_output=True,
        timeout=600,
    )
    a, b = episode_parts(tmp_path / "a" / "episodes.jsonl"), episode_parts(tmp_path / "b" / "episodes.jsonl")
    assert len(a) == len(SUITE)
    assert a == b
    # what differs is only the clock
    first = json.loads((tmp_path / "a" / "episodes.jsonl").read_text().splitlines()[0])
    assert set(first) - {"trajectory", "verdict"} >= {"started_at", "duration_s"}
