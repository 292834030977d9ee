"""One value rule at every depth (SPEC §3): numbers numerically, strings exactly after trimming, a
boolean only with a boolean — at the top level and inside any object or array — and the evaluator
applies it to a `Choice` and to the record an `ArgRef` binds."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from safeactbench.core.model import ArgRef, Choice
from safeactbench.core.values import is_blank, values_equal

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.characters(codec="utf-8", exclude_categories=("Zs", "Cc")), max_size=6),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("abc", max_size=2), inner, max_size=3),
    max_leaves=10,
)
wrappers = st.sampled_from(
    [
        lambda v: v,
        lambda v: [v],
        lambda v: {"s": v},
        lambda v: [{"a": [v]}],
        lambda v: {"a": {"b": [1, v]}},
    ]
)


def respelled(value: Any) -> Any:
    """The same value as another writer spells it: integers as floats, strings padded."""
    if isinstance(value, bool | float) or value is None:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, str):
        return f"  {value}\t"
    if isinstance(value, list):
        return [respelled(v) for v in value]
    return {k: respelled(v) for k, v in value.items()}


@given(values, wrappers)
def test_a_value_equals_its_respelling_at_every_depth(value: Any, wrap: Any) -> None:
    assert values_equal(wrap(value), wrap(respelled(value)))
    assert values_equal(wrap(respelled(value)), wrap(value))


@given(values, values, wrappers)
def test_nesting_never_changes_the_answer(a: Any, b: Any, wrap: Any) -> None:
    assert values_equal(wrap(a), wrap(b)) == values_equal(a, b) == values_equal(b, a)


@given(st.booleans(), st.sampled_from([0, 1, 0.0, 1.0]), wrappers)
def test_a_boolean_never_equals_a_number_at_any_depth(flag: bool, number: Any, wrap: Any) -> None:
    assert not values_equal(wrap(flag), wrap(number))
    assert not values_equal(wrap(number), wrap(flag))


def test_the_examples_the_rule_was_broken_on() -> None:
    assert not values_equal({"s": 1}, {"s": True})
    assert not values_equal([0], [False])
    assert values_equal({"s": " a "}, {"s": "a"})
    assert values_equal([{"n": 119}], [{"n": 119.0}])
    assert not values_equal({"a": 1}, {"a": 1, "b": None})  # a missing key is not a null one
    assert not values_equal([1, 2], [2, 1])  # arrays are ordered; 'unordered' parameters say so
    assert values_equal(10**400, 10**400) and not values_equal(10**400, 1.0)  # no overflow


def test_deep_nesting_is_compared_without_exhausting_the_stack() -> None:
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    assert values_equal(deep, deep)


def test_blank_is_what_no_choice_looks_like() -> None:
    assert all(is_blank(v) for v in (None, "", "   ", "\t\n", [], {}))
    assert not any(is_blank(v) for v in (0, False, " x ", [None], {"a": None}))


def _evaluate_choice(argument: Any, one_of: list[Any] | None) -> bool:
    from safeactbench.core.action_check import _argument_equal

    return _argument_equal(None, argument, Choice(choice="agent", one_of=one_of))


def test_a_choice_follows_the_same_rule() -> None:
    assert not _evaluate_choice("   ", None)  # whitespace is no choice
    assert _evaluate_choice(" K-1 ", None)
    assert _evaluate_choice(" K-1 ", ["K-1"])  # trimmed, as every string
    assert not _evaluate_choice(True, [1])


def test_an_arg_ref_binds_the_trimmed_record_id() -> None:
    from safeactbench.core.ledger import Ledger
    from safeactbench.core.replay import Replay
    from safeactbench.suite.catalog import get_case

    case = get_case("SAB-V1-001")
    state = Replay(case=case, steps=[], ledger=Ledger())
    state.called["a1"] = {"account": " K-1 ", "blank": "  "}
    assert state.resolve_ref(ArgRef(action="a1", arg="account", type="customer")) == "customer:K-1"
    assert state.resolve_ref(ArgRef(action="a1", arg="blank", type="customer")) is None


def test_a_padded_target_id_is_the_target_the_world_refused_not_another_target() -> None:
    """The world looks ids up exactly and refuses ` CH-1 `; the evaluator compares ids trimmed, so
    the finding is the refusal of the expected action, never a wrong target."""
    from safeactbench.core.episode import Episode
    from safeactbench.core.evaluator import evaluate
    from safeactbench.core.script import run_script
    from safeactbench.suite.catalog import get_case

    case = get_case("SAB-V1-001")
    action = case.expected_actions[0]
    tool = case.tool(action.tool)
    assert tool is not None and tool.effect.target_param is not None  # type: ignore[union-attr]
    target = tool.effect.target_param  # type: ignore[union-attr]
    script = [
        step.model_copy(update={"arguments": {**step.arguments, target: f" {step.arguments[target]} "}})
        if step.tool == action.tool
        else step
        for step in case.reference
    ]
    episode = Episode(case)
    run_script(episode, script)
    codes = {finding.code.value for finding in evaluate(case, episode.trajectory()).findings}
    assert "ACTION_REJECTED" in codes and "WRONG_TARGET" not in codes, codes
