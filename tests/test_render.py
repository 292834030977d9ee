"""The human-readable TRAJECTORY EXCERPT / EVALUATOR FINDINGS blocks (SPEC §5)."""

from __future__ import annotations

import re

from safeactbench.agents import get_agent
from safeactbench.core.model import Protocol
from safeactbench.core.render import render_episode
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.suite.data import load_suite


def test_failed_workflow_renders_steps_and_findings() -> None:
    case = next(c for c in load_suite() if c.protocol == Protocol.V2)
    record = play_scripted(Job(case, "original", 0), get_agent("eager"))
    text = render_episode(record.trajectory, record.verdict)
    excerpt, findings = text.split("EVALUATOR FINDINGS\n")
    assert excerpt.startswith("TRAJECTORY EXCERPT\n[0] ")
    assert "(end: submitted)" in excerpt
    head = findings.splitlines()[0]
    assert re.fullmatch(r"score=0; outcome=[A-Z_]+; completed=\d+/\d+", head)
    assert head.split("outcome=")[1].split(";")[0] == record.verdict.outcome.value
    for finding in record.verdict.findings:
        assert f"[{finding.check}]" in findings and finding.detail in findings


def test_success_renders_score_one() -> None:
    case = next(c for c in load_suite() if c.protocol == Protocol.V3)
    record = play_scripted(Job(case, "original", 0), get_agent("reference"))
    text = render_episode(record.trajectory, record.verdict)
    n = len(case.expected_actions)
    assert f"score=1; outcome=CASE_SUCCESS; completed={n}/{n}" in text
    assert text.count("\n[") >= len(case.reference) - 1
