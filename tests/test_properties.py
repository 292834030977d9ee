"""Property-based tests of the evaluator over the published suite (hypothesis).

Every trajectory is played through a real Episode; the properties are the evaluator's contract:
information calls never hurt, a required read is never optional, ids are only names, and a verdict
is a well-formed binary score.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safeactbench import audit
from safeactbench.audit import Call, play, reference_calls
from safeactbench.core.episode import SUBMIT
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import ArgRef, Case, DynamicRef, Protocol, ResultRef
from safeactbench.core.tool_spec import InfoEffect
from safeactbench.core.verdict import Verdict
from safeactbench.suite.data import load_suite

SUITE = load_suite()
INTERACTIVE = [c for c in SUITE if c.protocol != Protocol.LEGACY]
ACTING = [c for c in SUITE if c.protocol in (Protocol.V1, Protocol.V2, Protocol.V3)]
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def mutants_of(case_id: str) -> list[tuple[audit.Mutant, Case]]:
    case = next(c for c in SUITE if c.id == case_id)
    return [(m, scored) for m, scored, _ in audit.mutants(case)]


def values_pool(case: Case) -> list[Any]:
    """Values an agent could plausibly send: ids, enum values, the gold arguments, junk."""
    pool: list[Any] = [r.id for r in case.records]
    for tool in case.tools:
        for p in tool.params:
            pool += p.enum or []
    for action in case.expected_actions:
        pool += [v for v in action.arguments.values() if not isinstance(v, ResultRef)]
    return [*pool, "", "x" * 300, 0, -1, 2.5, None, True, "ünï©ødé ✓"]


@st.composite
def info_calls(draw: st.DrawFn, case: Case) -> Call:
    """A random call of one of the case's information tools, well-formed or not."""
    tool = draw(st.sampled_from([t for t in case.tools if t.kind == "information"]))
    pool = values_pool(case)
    args = {p.name: draw(st.sampled_from(pool)) for p in tool.params if draw(st.booleans()) or p.required}
    if draw(st.integers(0, 9)) == 0:
        args["unexpected"] = 1
    return Call(tool.name, args)


@st.composite
def any_calls(draw: st.DrawFn, case: Case) -> Call:
    """A random call of any tool (consequential, submit and unknown ones included)."""
    names = [t.name for t in case.tools] + [SUBMIT, "no_such_tool"]
    name = draw(st.sampled_from(names))
    tool = case.tool(name)
    pool = [*values_pool(case), "DONE", "BLOCK", "DEFER"]
    params = [p.name for p in tool.params] if tool else ["outcome", "x"]
    args = {p: draw(st.sampled_from(pool)) for p in params if draw(st.integers(0, 4)) > 0}
    return Call(name, args)


def submit_index(calls: list[Call]) -> int:
    return next((i for i, c in enumerate(calls) if c.tool == SUBMIT), len(calls))


# ---------------------------------------------------------------------------- information never hurts


@PROPS
@given(data=st.data())
def test_adding_information_calls_never_turns_a_success_into_a_failure(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(INTERACTIVE))
    passing = [m for m, scored in mutants_of(case.id) if m.expect == "pass" and scored is case]
    base = list(data.draw(st.sampled_from(passing)).calls) if passing and data.draw(st.booleans()) else None
    calls = base or reference_calls(case)
    assert evaluate(case, play(case, calls).trajectory).score == 1
    room = case.budget - len(calls)
    extra = data.draw(st.lists(info_calls(case), min_size=1, max_size=max(1, min(room, 6))))
    for call in extra[: max(room, 0)]:
        at = data.draw(st.integers(0, submit_index(calls)))
        calls.insert(at, call)
    verdict = evaluate(case, play(case, calls).trajectory)
    assert verdict.score == 1, verdict.findings


# ---------------------------------------------------------------------------- required reads


def _record_steps(case: Case, ref: str, before: int) -> set[int]:
    """Steps of the reference that returned the record `ref` before step `before`."""
    played = play(case, reference_calls(case))
    hits = set()
    for step in played.trajectory.steps[:before]:
        if step.kind != "information":
            continue
        obs = step.observation
        records = [obs["record"]] if isinstance(obs.get("record"), dict) else obs.get("records") or []
        if any(f"{r['type']}:{r['id']}" == ref for r in records):
            hits.add(step.index)
    return hits


@PROPS
@given(data=st.data())
def test_removing_every_read_of_a_required_record_always_fails(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(INTERACTIVE))
    calls = reference_calls(case)
    if case.protocol == Protocol.V0:
        assert case.stop is not None
        gate, req_ids = submit_index(calls), case.stop.required_reads
    else:
        position = data.draw(st.sampled_from([i for i, c in enumerate(calls) if c.action_id]))
        action = next(a for a in case.expected_actions if a.id == calls[position].action_id)
        gate, req_ids = position, action.requires
    observable = [
        r
        for r in req_ids
        if isinstance(case.requirement(r).ref, str)
        and case.requirement(r).result_of is None
        and "context" not in (case.requirement(r).via or [])
    ]
    if not observable:
        return
    req = case.requirement(data.draw(st.sampled_from(observable)))
    assert isinstance(req.ref, str)
    dropped = _record_steps(case, req.ref, gate)
    assert dropped, f"{case.id}: the reference never read {req.ref}"
    verdict = evaluate(case, play(case, [c for i, c in enumerate(calls) if i not in dropped]).trajectory)
    assert verdict.score == 0
    expected = "INCOMPLETE_INVESTIGATION" if case.protocol == Protocol.V0 else "UNSUPPORTED_ACTION"
    assert any(f.code == expected and req.ref in f.detail for f in verdict.findings), verdict.findings


# ---------------------------------------------------------------------------- ids are only names


def renaming(case: Case, salt: int) -> dict[str, str]:
    ids = sorted({r.id for r in case.records} | {c.ref.partition(":")[2] for c in case.context})
    return {old: f"ZN{salt:03d}{n:04d}Q" for n, old in enumerate(ids)}


def renamer(mapping: dict[str, str]) -> Any:
    pattern = re.compile(
        r"(?<![A-Za-z0-9_-])("
        + "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True))
        + r")(?![A-Za-z0-9_-])"
    )
    return lambda text: pattern.sub(lambda m: mapping[m.group(1)], text)


def rename_case(case: Case, rename: Any) -> Case:
    return Case.model_validate_json(rename(json.dumps(case.model_dump(mode="json"))))


def rename_call(call: Call, rename: Any) -> Call:
    args = {k: rename(v) if isinstance(v, str) else v for k, v in call.arguments.items()}
    return Call(call.tool, args, call.action_id, call.as_text)


def signature(verdict: Verdict) -> str:
    return verdict.model_dump_json(exclude={"case_id"})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_renaming_every_id_consistently_never_changes_a_verdict(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(SUITE))
    rename = renamer(renaming(case, data.draw(st.integers(0, 999))))
    renamed = rename_case(case, rename)
    assert renamed.records != case.records
    candidates = mutants_of(case.id)
    mutant, scored = data.draw(st.sampled_from(candidates))
    scored_renamed = renamed if scored is case else rename_case(scored, rename)
    original = evaluate(scored, play(scored, mutant.calls).trajectory)
    again = evaluate(scored_renamed, play(scored_renamed, [rename_call(c, rename) for c in mutant.calls]).trajectory)
    assert original.score == (mutant.expect == "pass")
    # the same verdict, down to every finding's text once its ids are renamed
    assert rename(signature(original)) == signature(again)


# ---------------------------------------------------------------------------- verdicts are well formed


def check_well_formed(verdict: Verdict) -> None:
    assert verdict.score in (0, 1)
    assert (verdict.score == 1) == (not verdict.findings)
    assert (verdict.outcome.value == "CASE_SUCCESS") == (verdict.score == 1)
    assert (verdict.failure_mode is None) == (verdict.score == 1)
    if verdict.findings:
        assert verdict.outcome == verdict.findings[0].code
        steps = [f.step for f in verdict.findings]
        assert steps == sorted(steps, key=lambda s: (s is None, s or 0))


@PROPS
@given(data=st.data())
def test_scores_are_binary_and_one_iff_there_are_no_findings(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(SUITE))
    if case.protocol == Protocol.LEGACY or data.draw(st.booleans()):
        mutant, scored = data.draw(st.sampled_from(mutants_of(case.id)))
        calls, target = list(mutant.calls), scored
    else:
        calls, target = data.draw(st.lists(any_calls(case), max_size=12)), case
    trajectory = play(target, calls).trajectory
    verdict = evaluate(target, trajectory)
    check_well_formed(verdict)
    # a pure function of its inputs: the serialised trajectory scores identically
    assert evaluate(target, trajectory.model_dump_json()) == verdict


@PROPS
@given(case=st.sampled_from(ACTING), data=st.data())
def test_an_action_whose_requirements_are_met_is_never_unsupported(case: Case, data: st.DataObject) -> None:
    """Support is monotone in the evidence: reading every requirement's record right before each
    action (whatever else happens) never leaves that action UNSUPPORTED."""
    calls = reference_calls(case)
    noise = data.draw(st.lists(info_calls(case), max_size=3))
    out: list[Call] = []
    for call in calls:
        if call.action_id:
            action = next(a for a in case.expected_actions if a.id == call.action_id)
            for r in action.requires:
                req = case.requirement(r)
                if isinstance(req.ref, DynamicRef) or req.result_of:
                    continue
                if isinstance(req.ref, ArgRef):  # the record the action's call (or its predecessor's) names
                    named = next(c for c in calls if c.action_id == req.ref.action).arguments[req.ref.arg]
                    record_type, record_id = req.ref.type, str(named)
                else:
                    record_type, _, record_id = req.ref.partition(":")
                getter = next(
                    t
                    for t in case.tools
                    if isinstance(t.effect, InfoEffect)
                    and t.effect.op == "get"
                    and t.effect.record_type == record_type
                    and (req.via is None or t.name in req.via)
                )
                assert isinstance(getter.effect, InfoEffect) and getter.effect.id_param
                out.append(Call(getter.name, {getter.effect.id_param: record_id}))
            out += noise
        out.append(call)
    if len(out) > case.budget:
        return
    verdict = evaluate(case, play(case, out).trajectory)
    assert verdict.score == 1, verdict.findings
