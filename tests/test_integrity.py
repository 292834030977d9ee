"""Integrity of the replay under re-serialisation and hostile size.

(a) A log re-scores identically after another JSON tool rewrote it: jq and node keep the value of a
    number but not its spelling (`75.0` -> `75`), so the integrity check compares JSON values.
(b) `evaluate` never raises: over-deep or over-large trajectories, as objects or as JSON text, are
    INVALID_TRAJECTORY with a detail naming the limit.
(c) What an agent sends is bounded: over-long tool names and oversized arguments come back as
    structured errors, are recorded as small markers, and replay to the same observations.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safeactbench.agents import AGENTS
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import MAX_TRAJECTORY_DEPTH, MAX_TRAJECTORY_SIZE, evaluate
from safeactbench.core.model import Case, Protocol
from safeactbench.core.script import ScriptError, resolve_arguments, run_script
from safeactbench.core.tool_spec import ActionEffect
from safeactbench.core.trajectory import Step, Trajectory
from safeactbench.core.values import json_equal
from safeactbench.core.verdict import Verdict
from safeactbench.core.world import MAX_ARGUMENT_BYTES, MAX_TOOL_NAME_CHARS, parse_arguments
from safeactbench.runs.runner import plan, play_scripted
from safeactbench.runs.store import EpisodeRecord, read_episodes
from safeactbench.suite.data import load_suite

SUITE = load_suite()
BY_ID = {c.id: c for c in SUITE}
ONE_PER_PROTOCOL = [next(c for c in SUITE if c.protocol == p) for p in Protocol]
MIB = 1024 * 1024


def round_trip_command(tool: str, program: str, trajectory_only: bool) -> list[str]:
    """Re-serialise JSONL line by line: `jq -c .`, or JSON.parse/JSON.stringify in node."""
    if tool == "jq":
        return [program, "-c", ".trajectory" if trajectory_only else "."]
    part = ".trajectory" if trajectory_only else ""
    script = (
        "require('readline').createInterface({input: process.stdin})"
        f".on('line', l => {{ if (l.trim()) console.log(JSON.stringify(JSON.parse(l){part})) }})"
    )
    return [program, "-e", script]


def js_number(value: Any) -> Any:
    """What JSON.stringify(JSON.parse(...)) and jq make of a number, as Python reads it back: the
    double, written without a fraction when integral below 1e21 (so Python parses an int)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 1e21 else number


def map_numbers(value: Any, convert: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return {k: map_numbers(v, convert) for k, v in value.items()}
    if isinstance(value, list):
        return [map_numbers(v, convert) for v in value]
    return convert(value)


def reference_episode(case: Case, before: Callable[[Episode], object] | None = None) -> Episode:
    episode = Episode(case)
    if before is not None:
        before(episode)
    run_script(episode, case.reference)
    episode.stop()
    return episode


def nested(depth: int) -> Any:
    value: Any = "x"
    for i in range(depth):
        value = {"a": value} if i % 2 else [value]
    return value


# ---------------------------------------------------------------------------- (a) re-serialisation


@pytest.fixture(scope="module")
def played() -> list[EpisodeRecord]:
    """Every scripted agent over the whole suite, in process: successes and every kind of failure."""
    return [play_scripted(job, agent) for agent in AGENTS.values() for job in plan(SUITE)]


@pytest.mark.parametrize("tool", ["jq", "node"])
def test_a_log_rescores_identically_after_jq_or_node(tool: str, played: list[EpisodeRecord], tmp_path: Path) -> None:
    program = shutil.which(tool)
    if program is None:
        pytest.skip(f"{tool} is not installed: cannot check the round trip through it")
    original = tmp_path / "episodes.jsonl"
    original.write_text("".join(r.model_dump_json() + "\n" for r in played), encoding="utf-8")
    rewritten, trajectories = tmp_path / f"{tool}.jsonl", tmp_path / f"{tool}-trajectories.jsonl"
    for target_path, trajectory_only in ((rewritten, False), (trajectories, True)):
        with original.open("rb") as source, target_path.open("wb") as target:
            command = round_trip_command(tool, program, trajectory_only)
            subprocess.run(command, stdin=source, stdout=target, check=True, timeout=300)
    before_lines = original.read_text(encoding="utf-8").splitlines()
    after_lines = rewritten.read_text(encoding="utf-8").splitlines()
    trajectory_texts = trajectories.read_text(encoding="utf-8").splitlines()
    assert len(after_lines) == len(before_lines)
    # the round trip really re-spelt numbers, in observations and in arguments (`21.0` -> `21`)
    assert sum(a != b for a, b in zip(before_lines, after_lines, strict=True)) > 100
    respelt_arguments = [
        (a, b)
        for line_a, line_b in zip(before_lines, after_lines, strict=True)
        for a, b in zip(
            json.loads(line_a)["trajectory"]["steps"], json.loads(line_b)["trajectory"]["steps"], strict=True
        )
        if json.dumps(a["arguments"]) != json.dumps(b["arguments"])
    ]
    assert respelt_arguments

    changed: list[str] = []
    for live, reread, text in zip(played, read_episodes(rewritten), trajectory_texts, strict=True):
        case = BY_ID[live.case_id]
        assert reread.trajectory is not None
        as_object = evaluate(case, reread.trajectory)  # the record as the store reads it back
        as_text = evaluate(case, text)  # the trajectory exactly as the tool wrote it
        if as_object != live.verdict or as_text != live.verdict:
            changed.append(f"{live.agent} {live.case_id}: {as_object.outcome} {as_object.findings[:1]}")
    assert not changed, f"{len(changed)} verdicts changed, e.g. {changed[:3]}"


def tamper(case: Case, edit: Callable[[dict[str, Any]], None]) -> Verdict:
    """The verdict of the case's reference trajectory with one recorded observation edited."""
    trajectory = reference_episode(case).trajectory().model_dump(mode="json")
    step = next(s for s in trajectory["steps"] if s["kind"] == "information" and "record" in s["observation"])
    edit(step["observation"]["record"])
    return evaluate(case, trajectory)


def test_the_integrity_check_compares_numbers_by_value_and_booleans_apart() -> None:
    case = ONE_PER_PROTOCOL[2]  # V1
    assert evaluate(case, reference_episode(case).trajectory()).outcome.value == "CASE_SUCCESS"

    def respell(record: dict[str, Any]) -> None:
        record["version"] = float(record["version"])  # 1 -> 1.0: the same JSON number

    assert tamper(case, respell).outcome.value == "CASE_SUCCESS"
    for change in (
        lambda r: r.update(version=r["version"] + 1),  # another value
        lambda r: r.update(version=r["version"] + 0.5),
        lambda r: r.update(version=True),  # `true` is no number, though Python says True == 1
        lambda r: r.update(version=str(r["version"])),
        lambda r: r.update(id=f" {r['id']}"),  # strings compare exactly: integrity does not trim
        lambda r: r.update(extra=None),  # another key set
    ):
        verdict = tamper(case, change)
        assert verdict.outcome.value == "TRAJECTORY_MISMATCH", verdict.findings
        detail = verdict.findings[0].detail
        assert "differs from replay" in detail and len(detail) < 600


def test_json_equal_edge_cases() -> None:
    assert json_equal(75, 75.0) and json_equal(-0.0, 0) and json_equal(10**21, 1e21)
    assert json_equal(2**53 + 1, 2**53)  # the same double: what jq and node keep of it
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, 0)
    assert not json_equal(1, 1.5) and not json_equal("1", 1) and not json_equal("a", " a")
    assert not json_equal({"a": 1}, {"a": 1, "b": 1}) and not json_equal([1], [1, 1]) and not json_equal([], {})
    assert json_equal({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]})
    deep = nested(200_000)  # iterative: no RecursionError however deep
    assert json_equal(deep, nested(200_000))


def test_arguments_respelt_by_a_json_tool_execute_the_same_call() -> None:
    """A wrong-typed `75.0` is reported the same as the `75` jq turns it into, integers beyond 2^53
    are executed as the double they round to, and the round-tripped log re-scores identically."""
    case = ONE_PER_PROTOCOL[2]
    tool, first = next(
        (t, p.name) for t in case.tools if t.kind == "information" for p in t.params if p.type == "string"
    )

    def odd_numbers(episode: Episode) -> None:
        for value in (75.0, -0.0, 1e16, 2**53 + 1, 2**60, 0.1):
            episode.call(tool.name, {first: value})

    episode = reference_episode(case, odd_numbers)
    messages = [s.observation["error"]["message"] for s in episode.steps[:6]]
    assert "got int" in messages[0] and "got float" in messages[-1]
    assert episode.steps[4].arguments == {first: float(2**60)}
    live = evaluate(case, episode.trajectory())
    assert live.outcome.value == "CASE_SUCCESS"
    respelt = map_numbers(episode.trajectory().model_dump(mode="json"), js_number)
    assert respelt["steps"][0]["arguments"][first] == 75 and type(respelt["steps"][0]["arguments"][first]) is int
    assert evaluate(case, respelt) == live
    assert evaluate(case, json.dumps(respelt)) == live


def test_findings_name_numbers_by_value() -> None:
    """An action on `75.0` is reported as on `75`, the form jq and node leave of it."""
    case = ONE_PER_PROTOCOL[2]
    action = case.expected_actions[0]
    spec = case.tool(action.tool)
    assert spec is not None and isinstance(spec.effect, ActionEffect)
    target = spec.effect.target_param
    episode = reference_episode(case, lambda e: e.call(action.tool, {target: 75.0}))
    live = evaluate(case, episode.trajectory())
    assert live.outcome.value == "WRONG_TARGET" and ":75;" in live.findings[0].detail, live.findings
    assert evaluate(case, map_numbers(episode.trajectory().model_dump(mode="json"), js_number)) == live


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([75.0, -0.0, 1e16, 1e21, 2**53 + 1, 0.1])
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_a_json_value_equals_itself_however_its_numbers_are_spelt(value: Any) -> None:
    text = json.dumps(value)
    assert json_equal(value, json.loads(text))
    assert json_equal(value, map_numbers(value, js_number))
    as_floats = map_numbers(value, lambda v: float(v) if isinstance(v, int) and not isinstance(v, bool) else v)
    assert json_equal(value, json.loads(json.dumps(as_floats)))
    if isinstance(value, dict) and value:
        changed = dict(value)
        key = next(iter(changed))
        changed[key] = [changed[key]]
        assert not json_equal(value, changed)


numbers = st.integers(min_value=-(2**64), max_value=2**64) | st.floats(
    allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from([c for c in SUITE if c.protocol != Protocol.LEGACY]), data=st.data())
def test_any_numbers_an_agent_sends_rescore_identically_after_a_round_trip(case: Case, data: st.DataObject) -> None:
    """Calls with numbers in every argument (as ints or floats), between the reference steps (whose
    numbers are sent as floats), re-score identically once every number is re-spelt as jq/node do."""
    episode = Episode(case)
    results: dict[str, dict[str, Any]] = {}
    for step in case.reference:
        if episode.done:
            break
        if len(episode.steps) + 2 < case.budget:
            tool = data.draw(st.sampled_from(case.tools))
            episode.call(tool.name, {p.name: data.draw(numbers) for p in tool.params})
        try:
            arguments = map_numbers(resolve_arguments(step.arguments, results), js_number)
        except ScriptError:  # a random call changed the world under the reference solution
            break
        observation = episode.call(step.tool, map_numbers(arguments, lambda v: float(v) if type(v) is int else v))
        if step.action_id is not None and observation.get("status") == "applied":
            results[step.action_id] = dict(observation.get("result") or {})
    episode.stop()
    live = evaluate(case, episode.trajectory())
    assert live.outcome.value != "TRAJECTORY_MISMATCH"
    respelt = map_numbers(episode.trajectory().model_dump(mode="json"), js_number)
    assert evaluate(case, respelt) == live


# ---------------------------------------------------------------------------- (b) hostile trajectories


def assert_refused(case: Case, trajectory: Any, problem: str) -> None:
    verdict = evaluate(case, trajectory)
    assert verdict.outcome.value == "INVALID_TRAJECTORY" and verdict.score == 0, verdict.findings
    assert problem in verdict.findings[0].detail, verdict.findings[0].detail


@pytest.mark.parametrize("where", ["observation", "arguments"])
def test_deep_nesting_is_an_invalid_trajectory_on_every_path(where: str) -> None:
    case = ONE_PER_PROTOCOL[2]
    trajectory = reference_episode(case).trajectory().model_dump(mode="json")
    trajectory["steps"][0][where] = {"deep": nested(3000)}
    problem = f"nested deeper than {MAX_TRAJECTORY_DEPTH} levels"
    assert_refused(case, trajectory, problem)  # plain data
    text = '{"steps": [' + json.dumps(dict(trajectory["steps"][0], **{where: {"deep": "@"}})) + "]}"
    text = text.replace('"@"', "[" * 3000 + "]" * 3000)
    assert_refused(case, text, problem)  # JSON text
    assert_refused(case, text.encode(), problem)
    step = Step.model_validate(trajectory["steps"][0])  # built in process: pydantic does not walk Any
    assert_refused(case, Trajectory(steps=[step]), problem)


def test_just_over_the_depth_limit_is_refused_and_just_under_is_replayed() -> None:
    case = ONE_PER_PROTOCOL[2]
    trajectory = reference_episode(case).trajectory().model_dump(mode="json")
    # trajectory (1) > steps (2) > step (3) > observation (4) > ...: `extra` adds the rest
    fits, too_deep = nested(MAX_TRAJECTORY_DEPTH - 4), nested(MAX_TRAJECTORY_DEPTH - 3)
    trajectory["steps"][0]["observation"]["extra"] = fits
    assert evaluate(case, trajectory).outcome.value == "TRAJECTORY_MISMATCH"
    assert evaluate(case, json.dumps(trajectory)).outcome.value == "TRAJECTORY_MISMATCH"
    trajectory["steps"][0]["observation"]["extra"] = too_deep
    assert_refused(case, trajectory, "nested deeper")
    assert_refused(case, json.dumps(trajectory), "nested deeper")


def test_an_over_large_trajectory_is_refused_before_it_is_parsed() -> None:
    case = ONE_PER_PROTOCOL[2]
    trajectory = reference_episode(case).trajectory().model_dump(mode="json")
    trajectory["steps"][0]["observation"]["padding"] = "x" * (MAX_TRAJECTORY_SIZE + 1)
    problem = f"larger than {MAX_TRAJECTORY_SIZE} characters"
    assert_refused(case, trajectory, problem)
    assert_refused(case, json.dumps(trajectory), problem)
    shared = ["x" * 10_000] * 100
    trajectory["steps"][0]["observation"]["padding"] = [shared] * 50_000  # 50 GB of text in 400 KB of memory
    assert_refused(case, trajectory, problem)


# ---------------------------------------------------------------------------- (c) hostile calls


def first_information_tool(case: Case) -> tuple[str, str]:
    """A tool and parameter name to send oversized arguments to: a read (the terminal in Legacy)."""
    if case.protocol == Protocol.LEGACY:
        return "decide", "decision"
    tool = next(t for t in case.tools if t.kind == "information")
    return tool.name, tool.params[0].name


def error_code(observation: dict[str, Any]) -> str:
    return str(observation.get("code") or observation["error"]["code"])


@pytest.mark.parametrize("case", ONE_PER_PROTOCOL, ids=lambda c: c.protocol.value)
def test_oversized_calls_are_refused_recorded_small_and_replayed(case: Case) -> None:
    tool, param = first_information_tool(case)
    huge = "x" * (10 * MIB)
    observations: list[dict[str, Any]] = []

    def hostile(episode: Episode) -> None:
        observations.append(episode.call(tool, {param: huge}))  # an object
        observations.append(episode.call(tool, json.dumps({param: huge})))  # JSON text
        observations.append(episode.call(tool, {param: nested(5000)}))  # too deep
        observations.append(episode.call("get_" + "x" * (10 * MIB), {}))  # an over-long name
        not_a_name: Any = ["x" * MIB]
        observations.append(episode.call(not_a_name, {}))  # not even a string

    episode = reference_episode(case, hostile)
    codes = [error_code(o) for o in observations]
    assert codes == ["INVALID_ARGUMENTS"] * 3 + ["UNKNOWN_TOOL"] * 2, observations
    for observation in observations[:2]:
        assert f"exceed the {MAX_ARGUMENT_BYTES}-byte limit" in observation["error"]["message"]
    assert f"exceeds the {MAX_TOOL_NAME_CHARS}-character limit" in observations[3]["error"]["message"]
    recorded = episode.steps
    assert recorded[0].arguments == f"<arguments of {10 * MIB + len(param) + 7} bytes exceed the 65536-byte limit>"
    assert recorded[3].tool == f"<tool name of {10 * MIB + 4} characters exceeds the 128-character limit>"

    live = evaluate(case, episode.trajectory())
    assert live.outcome.value == "CASE_SUCCESS", live.findings  # the episode went on to a normal finish
    text = episode.trajectory().model_dump_json()
    assert len(text) < 100_000
    assert evaluate(case, text) == live
    assert evaluate(case, json.loads(text)) == live
    assert evaluate(case, map_numbers(json.loads(text), js_number)) == live


def test_the_limits_are_exact_and_count_utf8_bytes() -> None:
    case = ONE_PER_PROTOCOL[2]
    tool, _ = first_information_tool(case)
    episode = Episode(case)
    padding = MAX_ARGUMENT_BYTES - len('{"zz":""}')
    episode.call(tool, {"zz": "x" * padding})  # exactly at the limit: kept
    episode.call(tool, {"zz": "x" * (padding + 1)})
    episode.call(tool, "x" * MAX_ARGUMENT_BYTES)
    episode.call(tool, "é" * (MAX_ARGUMENT_BYTES // 2 + 1))  # fewer characters than the limit, more bytes
    episode.call("x" * MAX_TOOL_NAME_CHARS, {})
    episode.call("x" * (MAX_TOOL_NAME_CHARS + 1), {})
    steps = episode.steps
    assert isinstance(steps[0].arguments, dict) and "byte limit" not in json.dumps(steps[0].observation)
    assert steps[1].arguments == f"<arguments of {MAX_ARGUMENT_BYTES + 1} bytes exceed the 65536-byte limit>"
    assert steps[2].arguments == "x" * MAX_ARGUMENT_BYTES
    assert steps[3].arguments == f"<arguments of {MAX_ARGUMENT_BYTES + 2} bytes exceed the 65536-byte limit>"
    assert steps[4].tool == "x" * MAX_TOOL_NAME_CHARS
    assert steps[5].tool.startswith("<tool name of 129 characters")
    episode.stop()
    assert evaluate(case, episode.trajectory().model_dump_json()) == evaluate(case, episode.trajectory())


def test_only_the_exact_marker_reads_as_oversized_arguments() -> None:
    """Nothing a tool could accept is ever taken for a marker: only the whole, exact, non-JSON text."""
    case = ONE_PER_PROTOCOL[2]
    tool, param = first_information_tool(case)
    marker = "<arguments of 99999999 bytes exceed the 65536-byte limit>"
    lookalikes: list[Any] = [
        {param: marker},  # a value inside a JSON object is a value
        json.dumps({param: marker}),
        json.dumps(marker),  # a JSON string: not an object
        " " + marker,
        marker + "\n",
        "<arguments of 12 bytes exceed the limit>",
    ]
    episode = Episode(case)

    def size_error(observation: dict[str, Any]) -> bool:
        return str(observation["error"]["message"]).startswith("arguments of ")

    for arguments in lookalikes:
        observation = episode.call(tool, arguments)
        assert observation["status"] == "error" and not size_error(observation), (arguments, observation)
    assert size_error(episode.call(tool, marker))
    episode.stop()
    assert evaluate(case, episode.trajectory().model_dump_json()) == evaluate(case, episode.trajectory())
    with pytest.raises(ValueError, match="exceed the 65536-byte limit"):
        parse_arguments(json.dumps({param: "x" * MAX_ARGUMENT_BYTES}))  # text is never parsed past the limit


def test_a_replayed_marker_step_reproduces_its_observation() -> None:
    """The evaluator replays recorded calls through `Episode.call`: a recorded marker is its own
    recorded form, so the step and its observation come back identical."""
    case = ONE_PER_PROTOCOL[1]  # V0
    tool, param = first_information_tool(case)
    live = Episode(case)
    live.call(tool, {param: "y" * (MAX_ARGUMENT_BYTES + 10)})
    live.call("z" * 500, {param: "y"})
    assert (
        live.steps[0].arguments
        == f"<arguments of {MAX_ARGUMENT_BYTES + 10 + len(param) + 7} bytes exceed the 65536-byte limit>"
    )
    assert live.steps[1].tool == "<tool name of 500 characters exceeds the 128-character limit>"
    replay = Episode(case)
    for step in live.steps:
        replay.call(step.tool, step.arguments)
    assert replay.steps == live.steps
