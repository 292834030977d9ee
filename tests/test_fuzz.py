"""Fuzzing the agent-facing surface: whatever an agent sends, the episode answers with a structured
observation, a failed call changes nothing, and the trajectory serialises and replays exactly.

In process with hypothesis (random tool names, argument types, huge strings, deep nesting, unicode,
NaN, nulls, non-object JSON), then the same through the MCP server over stdio for a smaller sample.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safeactbench.core.episode import DECIDE, SUBMIT, Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Case, Protocol
from safeactbench.core.trajectory import Trajectory
from safeactbench.suite.data import load_suite

SUITE = load_suite()
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STATUSES = {"ok", "error", "applied", "rejected"}


def nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for i in range(depth):
        value = {"a": value} if i % 2 else [value]
    return value


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["\ud800", "\x00", "🙂\u202e", "' OR 1=1 --", "../../etc/passwd", " CH-1 "]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)
huge = st.sampled_from(["x" * 3_000_000, "é" * 500_000])


@st.composite
def tool_names(draw: st.DrawFn, case: Case) -> Any:
    known = [t.name for t in case.tools] + [SUBMIT, DECIDE]
    return draw(
        st.one_of(
            st.sampled_from(known),
            st.sampled_from(known),
            st.text(max_size=30),
            huge,
            st.none(),
            st.integers(),
            st.sampled_from(["get_charge\x00", "SUBMIT", " submit", "\ud800"]),
        )
    )


@st.composite
def arguments(draw: st.DrawFn, case: Case, tool: Any) -> Any:
    spec = case.tool(tool) if isinstance(tool, str) else None
    names = [p.name for p in spec.params] if spec else ["outcome", "decision", "reason"]
    pool = [r.id for r in case.records] + ["DONE", "BLOCK", "DEFER", "ALLOW"]
    for p in spec.params if spec else []:
        pool += p.enum or []
    plausible = st.dictionaries(st.sampled_from(names), st.sampled_from(pool) | scalars, max_size=len(names) + 1)
    return draw(
        st.one_of(
            plausible,
            plausible,
            st.none(),
            json_values,
            json_values.map(lambda v: json.dumps(v)),  # arguments as JSON text, objects or not
            st.text(max_size=60),
            st.dictionaries(st.sampled_from(names) | st.text(max_size=5), json_values, max_size=4),
            st.integers(1, 5000).map(lambda d: {names[0] if names else "x": nested(d)}),
            st.integers(1, 5000).map(nested),
            st.integers(1, 3000).map(lambda d: "[" * d + "]" * d),
            huge.map(lambda s: {names[0] if names else "x": s}),
            st.sampled_from(['{"a": NaN}', '{"a": Infinity}', "{" + '"a": 1, ' * 3 + "}", "9" * 5000, "null", "[]"]),
            st.sampled_from([(1, 2), {1: "x"}, {"x": {1, 2}}, {"x": b"bytes"}, {"x": object()}]),
        )
    )


def world_state(episode: Episode) -> str:
    world = episode.world
    return json.dumps({ref: world.get(ref) for ref in sorted(world.refs())}, sort_keys=True)


def check_call(episode: Episode, tool: Any, args: Any) -> dict[str, Any]:
    before, steps_before, was_done = world_state(episode), len(episode.steps), episode.done
    observation = episode.call(tool, args)
    assert isinstance(observation, dict) and observation.get("status") in STATUSES, observation
    json.dumps(observation, allow_nan=False).encode("utf-8")  # strict JSON, encodable
    if was_done:
        assert observation["error"]["code"] == "EPISODE_FINISHED" and len(episode.steps) == steps_before
        return observation
    step = episode.steps[-1]
    assert len(episode.steps) == steps_before + 1 and step.observation == observation
    if observation["status"] != "applied" or step.kind != "consequential":
        assert world_state(episode) == before, f"{tool!r} {observation}"
    return observation


def check_trajectory(case: Case, episode: Episode) -> None:
    episode.stop()
    trajectory = episode.trajectory()
    text = trajectory.model_dump_json()
    assert Trajectory.model_validate_json(text) == trajectory
    verdict = evaluate(case, trajectory)
    assert evaluate(case, text) == verdict
    assert verdict.outcome.value not in ("TRAJECTORY_MISMATCH", "INVALID_TRAJECTORY"), verdict.findings


@FUZZ
@given(case=st.sampled_from(SUITE), data=st.data())
def test_episode_call_never_raises_and_failed_calls_change_nothing(case: Case, data: st.DataObject) -> None:
    episode = Episode(case)
    for _ in range(data.draw(st.integers(1, 6))):
        tool = data.draw(tool_names(case))
        check_call(episode, tool, data.draw(arguments(case, tool)))
    check_trajectory(case, episode)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from([c for c in SUITE if c.protocol != Protocol.LEGACY]), data=st.data())
def test_hostile_calls_between_the_reference_steps_replay_exactly(case: Case, data: st.DataObject) -> None:
    """Garbage between genuine calls (some of which apply) never breaks the replay of the rest."""
    from safeactbench.core.script import run_step

    episode = Episode(case)
    results: dict[str, dict[str, Any]] = {}
    for step in case.reference:
        if episode.done:
            break
        tool = data.draw(tool_names(case))
        check_call(episode, tool, data.draw(arguments(case, tool)))
        if not episode.done:
            run_step(episode, step, results)
    check_trajectory(case, episode)


def test_the_cases_the_fuzzer_found_stay_fixed() -> None:
    """Each of these used to raise, or recorded something that did not replay identically."""
    case = next(c for c in SUITE if c.protocol == Protocol.V1)
    episode = Episode(case)
    calls = [
        (None, {}),
        (5, {}),
        ("\ud800", {}),
        ("get_charge", {"charge_id": "\ud800"}),
        ("get_charge", {"charge_id": float("nan")}),
        ("get_charge", '{"charge_id": NaN}'),
        ("issue_refund", {"charge_id": "X", "amount": float("inf"), "destination_id": "Y", "reason": "duplicate"}),
        ("issue_refund", {"charge_id": "X", "amount": 10**400, "destination_id": "Y", "reason": "duplicate"}),
        ("get_charge", nested(5000)),
        ("get_charge", {"charge_id": nested(5000)}),
        ("get_charge", {"charge_id": {1, 2}}),
        ("get_charge", {1: "x"}),
        ("get_charge", "9" * 5000),
        ("get_charge", ("a",)),
    ]
    codes = []
    for tool, args in calls:
        observation = check_call(episode, tool, args)
        codes.append(observation.get("code") or observation["error"]["code"])
    assert codes[:3] == ["UNKNOWN_TOOL"] * 3
    assert set(codes[4:]) == {"INVALID_ARGUMENTS"}
    assert episode.steps[0].tool == "null" and episode.steps[2].tool == "?"
    check_trajectory(case, episode)


# ---------------------------------------------------------------------------- over MCP (stdio)


def hostile_mcp_calls(case: Case, rng: random.Random, n: int) -> list[tuple[str, dict[str, Any] | None]]:
    """What an MCP client can send: a string name and an object (or no) arguments."""
    names = [t.name for t in case.tools] + [SUBMIT]
    ids = [r.id for r in case.records]
    leaves: list[Any] = [
        None,
        True,
        0,
        -7,
        1e308,
        2.5,
        "",
        "\x00",
        "🙂\u202eüñï",
        "x" * 200_000,
        "' OR 1=1 --",
        *ids[:5],
    ]
    out: list[tuple[str, dict[str, Any] | None]] = []
    for _ in range(n):
        name = rng.choice([*names, *names, "", "no_such_tool", "get_charge\x00", "🙂"])
        spec = case.tool(name)
        params = [p.name for p in spec.params] if spec else ["x"]
        shape = rng.randrange(6)
        if shape == 0:
            args: dict[str, Any] | None = None
        elif shape == 1:
            args = {p: rng.choice(leaves) for p in params}
        elif shape == 2:
            args = {rng.choice(params): nested(rng.randrange(1, 60))}
        elif shape == 3:
            args = {"unexpected": [rng.choice(leaves) for _ in range(3)]}
        elif shape == 4:
            args = {p: rng.choice(ids) for p in params}
        else:
            args = {}
        out.append((name, args))
    return out


async def _drive(config: dict[str, Any], calls: list[tuple[str, dict[str, Any] | None]]) -> list[Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=config["command"], args=config["args"])
    answers: list[Any] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, args in calls:
            result = await session.call_tool(name, args)
            answers.append((result.is_error, json.loads(result.content[0].text)))
    return answers


def test_hostile_calls_over_mcp_get_structured_answers_and_replay(tmp_path: Path) -> None:
    cases = [next(c for c in SUITE if c.protocol.value == p) for p in ("V0", "V2", "V3")]
    for number, case in enumerate(cases):
        out = tmp_path / f"episode{number}"
        config = {
            "command": sys.executable,
            "args": ["-m", "safeactbench", "mcp", "--case", case.id, "--out", str(out)],
        }
        calls = hostile_mcp_calls(case, random.Random(number), 24)
        answers = anyio.run(_drive, config, calls)
        assert len(answers) == len(calls)
        trajectory = Trajectory.model_validate_json((out / "trajectory.json").read_text(encoding="utf-8"))
        for (is_error, observation), step in zip(answers, trajectory.steps, strict=False):
            assert observation.get("status") in STATUSES
            assert is_error == (observation["status"] in ("error", "rejected"))
            assert step.observation == observation
        # replay in process: every failed call left the world as it was
        episode = Episode(case)
        for step in trajectory.steps:
            before = world_state(episode)
            observation = episode.call(step.tool, step.arguments)
            assert observation == step.observation
            if observation["status"] != "applied":
                assert world_state(episode) == before
        verdict = evaluate(case, trajectory)
        assert verdict.outcome.value not in ("TRAJECTORY_MISMATCH", "INVALID_TRAJECTORY"), verdict.findings
