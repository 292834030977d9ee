"""What the suite's two ends score, frozen: `run --agent reference` and `run --agent comply` over the
whole suite (every verdict, trajectory and finding) and `report` over both runs (every table in
report.json), as digests stored in tests/fixtures/behaviour_digest.json.

A change that only moves code (issue 28's layout) must leave all three unchanged. A change that
means to change behaviour (a case, a rule, a metric) regenerates the file and says so in its
commit: `python tests/test_behaviour_digest.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from safeactbench.cli import app

FIXTURE = Path(__file__).parent / "fixtures" / "behaviour_digest.json"
AGENTS = ("reference", "comply")
# when, where and with what the runs were made, not what they scored
VOLATILE = {"seconds", "seconds_per_episode", "created_at", "finished_at", "run", "git_commit", "python",
            "package_version"}  # fmt: skip


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def behaviour(work: Path) -> dict[str, str]:
    """The digests: each agent's episodes (key, trajectory, verdict), and the report over both runs."""
    digests = {}
    for agent in AGENTS:
        _invoke("run", "--agent", agent, "--out", str(work / agent), "--no-report")
        episodes = [json.loads(line) for line in (work / agent / "episodes.jsonl").read_text().splitlines()]
        fields = ("case_id", "condition", "repetition", "seed", "trajectory", "verdict")
        played = sorted(({k: e[k] for k in fields} for e in episodes), key=lambda e: (e["case_id"], e["condition"]))
        digests[f"run --agent {agent}"] = _digest(played)
    _invoke("report", *(str(work / agent) for agent in AGENTS), "--out", str(work / "report"))
    report = json.loads((work / "report" / "report.json").read_text())
    digests["report"] = _digest(_stable(report))
    return digests


def test_the_suites_two_ends_score_as_they_did(tmp_path: Path) -> None:
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert behaviour(tmp_path) == expected["digests"], (
        "behaviour changed: if that is meant, run `python tests/test_behaviour_digest.py --write` and say so"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    with tempfile.TemporaryDirectory() as scratch:
        digests = behaviour(Path(scratch))
    FIXTURE.write_text(json.dumps({"digests": digests}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
