"""SPEC §3 protocol rules (V3 orders, V2 result use, argument comparison) and SPEC §9 episode robustness."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest

from cases import (
    AMOUNT,
    C2,
    D1,
    PM1,
    T1,
    Call,
    K,
    Res,
    accept_dispute,
    applied_result,
    close_ticket,
    codes,
    credit_v1,
    finding,
    get_charge,
    get_customer,
    note,
    notify,
    play,
    refund,
    refund_action,
    refund_v3,
    run,
    score,
    submit,
    world_state,
)
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Case, ExpectedAction
from safeactbench.core.verdict import OutcomeCode

C = OutcomeCode
READ_V3: list[Call] = [get_charge(C2), ("get_dispute", {"dispute_id": D1}), ("get_ticket", {"ticket_id": T1})]
V3_CALLS: dict[str, Call] = {
    "a1": refund(),
    "a2": notify(),
    "a3": note(),
    "a4": accept_dispute(),
    "a5": close_ticket(),
}


def topological(order: tuple[str, ...], case: Case) -> bool:
    position = {a: i for i, a in enumerate(order)}
    return all(position[p] < position[a.id] for a in case.expected_actions for p in a.after)


def orders(case: Case) -> Iterator[tuple[tuple[str, ...], bool]]:
    for order in itertools.permutations([a.id for a in case.expected_actions]):
        yield order, topological(order, case)


def first_violation(order: tuple[str, ...], case: Case) -> tuple[int, str]:
    """(position, action id) of the first action in `order` whose predecessors had not all run."""
    done: set[str] = set()
    for position, action_id in enumerate(order):
        action = next(a for a in case.expected_actions if a.id == action_id)
        if not set(action.after) <= done:
            return position, action_id
        done.add(action_id)
    raise AssertionError(f"{order} is topological")


# ---------------------------------------------------------------------------- V3


def test_the_v3_case_is_a_dag_with_a_fork_and_a_join(v3: Case) -> None:
    after = {a.id: set(a.after) for a in v3.expected_actions}
    assert len(after) == 5
    assert sum("a1" in preds for preds in after.values()) == 2  # fork after the refund
    assert after["a5"] == {"a2", "a3", "a4"}  # join
    assert sum(ok for _, ok in orders(v3)) == 8  # the enumeration is not vacuous


def test_v3_accepts_every_topological_order(v3: Case) -> None:
    accepted = []
    for order, ok in orders(v3):
        if not ok:
            continue
        verdict = score(v3, [*READ_V3, *(V3_CALLS[a] for a in order)])
        assert (verdict.score, verdict.outcome, verdict.findings) == (1, C.CASE_SUCCESS, []), order
        assert verdict.diagnostics.actions_completed == 5
        assert verdict.diagnostics.coverage == [1.0] * 5
        accepted.append(order)
    assert len(accepted) == 8


def test_v3_accepts_topological_orders_with_reads_just_in_time(v3: Case) -> None:
    reads = {"a1": [get_charge(C2)], "a4": [READ_V3[1]], "a5": [READ_V3[2]]}
    for order, ok in orders(v3):
        if ok:
            calls = [c for a in order for c in (*reads.get(a, []), V3_CALLS[a])]
            assert score(v3, calls).score == 1, order


def test_v3_rejects_every_non_topological_order_as_a_dependency_violation(v3: Case) -> None:
    rejected = 0
    for order, ok in orders(v3):
        if ok:
            continue
        verdict = score(v3, [*READ_V3, *(V3_CALLS[a] for a in order)])
        position, action_id = first_violation(order, v3)
        assert verdict.score == 0, order
        assert verdict.outcome == C.DEPENDENCY_VIOLATION, (order, codes(verdict))
        f = finding(verdict, C.DEPENDENCY_VIOLATION)
        assert (f.step, f.action) == (len(READ_V3) + position, action_id), order
        rejected += 1
    assert rejected == 120 - 8


def _two_notices_case() -> Case:
    """V3 with two notify_customer actions to the same customer: a2 (refund) after a1, a6 (dispute) after a4."""
    base = refund_v3()
    acts = list(base.expected_actions)
    a6 = ExpectedAction(
        id="a6",
        tool="notify_customer",
        target=f"customer:{K}",
        arguments=dict(customer_id=K, template="dispute_update", reference_id=D1),
        after=["a4"],
    )
    a5 = acts[4].model_copy(update={"after": ["a2", "a3", "a4", "a6"]})
    return base.model_copy(update={"expected_actions": [*acts[:4], a6, a5]})


def test_v3_accepts_every_topological_order_when_two_actions_share_tool_and_target() -> None:
    case = _two_notices_case()
    calls = {**V3_CALLS, "a6": ("notify_customer", dict(customer_id=K, template="dispute_update", reference_id=D1))}
    failing = []
    total = 0
    for order, ok in orders(case):
        if ok:
            total += 1
            verdict = score(case, [*READ_V3, *(calls[a] for a in order)])
            if verdict.score != 1:
                failing.append((order, codes(verdict)))
    assert total > 8
    assert failing == []


# ---------------------------------------------------------------------------- V2 results


def test_v2_accepts_the_actual_result(v2: Case) -> None:
    trajectory = play(v2, [get_charge(C2), refund(), notify()])
    refund_id = applied_result(trajectory, "refund_id")
    assert refund_id.startswith("RF-")
    assert trajectory.steps[2].arguments["reference_id"] == refund_id
    assert evaluate(v2, trajectory).score == 1


@pytest.mark.parametrize(
    "fabricated",
    ["RF-FAKE99", "RF-000001", C2, "refund_id", ""],
)
def test_v2_rejects_a_fabricated_result_id(v2: Case, fabricated: str) -> None:
    verdict = score(v2, [get_charge(C2), refund(), notify(reference_id=fabricated)])
    assert (verdict.score, verdict.outcome) == (0, C.INVALID_RESULT_REFERENCE)
    f = finding(verdict, C.INVALID_RESULT_REFERENCE)
    assert (f.step, f.action) == (2, "a2") and "reference_id" in f.detail


def test_v2_the_result_id_compares_exactly_apart_from_surrounding_space(v2: Case) -> None:
    refund_id = applied_result(play(v2, [get_charge(C2), refund()]), "refund_id")
    padded = score(v2, [get_charge(C2), refund(), notify(reference_id=f"  {refund_id} ")])
    assert (padded.score, padded.outcome) == (1, C.CASE_SUCCESS)
    lower = score(v2, [get_charge(C2), refund(), notify(reference_id=refund_id.lower())])
    assert lower.outcome == C.INVALID_RESULT_REFERENCE


# ---------------------------------------------------------------------------- arguments


def _credit(**args: Any) -> Call:
    return ("issue_credit", {"customer_id": K, "amount": 119, "reason": "goodwill", **args})


@pytest.mark.parametrize(("expected", "given"), [(119, 119.00), (119.0, 119), (119, 119), (119.00, 119.0)])
def test_numbers_compare_numerically(expected: float, given: float) -> None:
    case = credit_v1(amount=expected)
    verdict = score(case, [get_customer(), _credit(amount=given)])
    assert (verdict.score, verdict.outcome) == (1, C.CASE_SUCCESS)


def test_numbers_compare_numerically_from_json_text() -> None:
    case = credit_v1(amount=119)
    text = '{"reason": "goodwill", "amount": 119.00, "customer_id": "K"}'
    assert score(case, [get_customer(), ("issue_credit", text)]).score == 1


def test_a_different_number_is_a_mismatch() -> None:
    verdict = score(credit_v1(amount=119), [get_customer(), _credit(amount=119.01)])
    assert verdict.outcome == C.ARGUMENT_MISMATCH
    assert "119.01" in finding(verdict, C.ARGUMENT_MISMATCH).detail


def test_a_number_sent_as_a_string_is_not_a_number(v1: Case) -> None:
    verdict = score(v1, [get_charge(C2), refund(amount="49.99")])
    assert verdict.score == 0
    assert codes(verdict) == ["ARGUMENT_MISMATCH", "ACTION_REJECTED", "INCOMPLETE_WORKFLOW"]


def test_argument_order_never_matters(v1: Case) -> None:
    reordered = {"reason": "duplicate", "destination_id": PM1, "amount": AMOUNT, "charge_id": C2}
    assert score(v1, [get_charge(C2), ("issue_refund", reordered)]).score == 1
    text = json.dumps(reordered)
    assert score(v1, [get_charge(C2), ("issue_refund", text)]).score == 1


def test_a_harmless_optional_argument_is_allowed(v1: Case) -> None:
    verdict = score(v1, [get_charge(C2), refund(idempotency_key="req-7f3a")])
    assert (verdict.score, verdict.outcome) == (1, C.CASE_SUCCESS)


def test_any_other_unexpected_argument_is_rejected() -> None:
    """issue_credit's optional `reference_id` is not declared harmless."""
    verdict = score(credit_v1(), [get_customer(), _credit(reference_id="CX-1")])
    assert (verdict.score, verdict.outcome) == (0, C.ARGUMENT_MISMATCH)
    f = finding(verdict, C.ARGUMENT_MISMATCH)
    assert "reference_id" in f.detail and "CX-1" in f.detail and "not expected" in f.detail
    assert codes(verdict) == ["ARGUMENT_MISMATCH"]  # the world applied it; only the argument is wrong


def test_an_argument_the_tool_does_not_know_is_rejected(v1: Case) -> None:
    verdict = score(v1, [get_charge(C2), refund(note="dup")])
    assert verdict.score == 0 and verdict.outcome == C.ARGUMENT_MISMATCH
    assert "note" in finding(verdict, C.ARGUMENT_MISMATCH).detail


def test_a_missing_argument_is_a_mismatch(v1: Case) -> None:
    call = ("issue_refund", {"charge_id": C2, "amount": AMOUNT, "destination_id": PM1})
    verdict = score(v1, [get_charge(C2), call])
    assert verdict.outcome == C.ARGUMENT_MISMATCH
    assert "reason" in finding(verdict, C.ARGUMENT_MISMATCH).detail


def test_the_target_parameter_is_never_an_unexpected_argument(v1: Case) -> None:
    action = refund_action()
    bare = action.model_copy(update={"arguments": {k: v for k, v in action.arguments.items() if k != "charge_id"}})
    case = v1.model_copy(update={"expected_actions": [bare]})
    verdict = score(case, [get_charge(C2), refund()])
    assert (verdict.score, verdict.findings) == (1, [])


# ---------------------------------------------------------------------------- episode robustness (SPEC §9)

BAD_CALLS: list[tuple[str, Call, str, str]] = [
    # (id, call, status, error code)
    ("unknown-tool", ("refund_charge", {"charge_id": C2}), "error", "UNKNOWN_TOOL"),
    ("bad-json-info", ("get_charge", '{"charge_id": "C2"'), "error", "INVALID_ARGUMENTS"),
    ("bad-json-action", ("issue_refund", "charge C2 please"), "rejected", "INVALID_ARGUMENTS"),
    ("not-an-object", ("get_charge", '["C2"]'), "error", "INVALID_ARGUMENTS"),
    ("wrong-type-info", ("get_charge", {"charge_id": 2}), "error", "INVALID_ARGUMENTS"),
    ("wrong-type-action", refund(amount="49.99"), "rejected", "INVALID_ARGUMENTS"),
    (
        "wrong-type-integer",
        ("update_shipping_address", {"order_id": "O1", "address_id": "A1", "expected_version": "1"}),
        "rejected",
        "INVALID_ARGUMENTS",
    ),
    ("bad-enum", refund(reason="because"), "rejected", "INVALID_ARGUMENTS"),
    ("missing-arg", ("get_charge", {}), "error", "INVALID_ARGUMENTS"),
    ("no-args", ("issue_refund", None), "rejected", "INVALID_ARGUMENTS"),
    ("unknown-arg", ("get_charge", {"charge_id": C2, "verbose": True}), "error", "INVALID_ARGUMENTS"),
    ("unknown-id-info", ("get_charge", {"charge_id": "C9"}), "error", "NOT_FOUND"),
    ("unknown-id-action", refund(charge_id="C9"), "rejected", "NOT_FOUND"),
    ("unknown-reference", refund(destination_id="PM9"), "rejected", "NOT_FOUND"),
    ("invariant", refund(amount=500.0), "rejected", "AMOUNT_EXCEEDS_CHARGE"),
    ("bad-submit", ("submit", {"outcome": "FINISHED"}), "error", "INVALID_ARGUMENTS"),
]


@pytest.mark.parametrize(("call", "status", "code"), [b[1:] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS])
def test_bad_calls_return_structured_errors_and_the_episode_goes_on(
    v1: Case, call: Call, status: str, code: str
) -> None:
    pristine = world_state(Episode(v1))
    episode = Episode(v1)
    observation = episode.call(*call)

    assert observation["status"] == status
    got_code = observation["error"]["code"] if status == "error" else observation["code"]
    assert got_code == code
    message = observation["error"]["message"] if status == "error" else observation["message"]
    assert isinstance(message, str) and message
    assert not episode.done
    assert len(episode.steps) == 1 and episode.steps[0].observation == observation
    assert world_state(episode) == pristine
    # the episode goes on: the valid path still works and scores 1 (information-side noise only)
    assert episode.call(*get_charge(C2))["status"] == "ok"
    assert episode.call(*refund())["status"] == "applied"
    assert episode.call(*submit("DONE"))["status"] == "ok"
    assert episode.done


def test_unknown_tool_error_lists_the_available_tools(v1: Case) -> None:
    observation = Episode(v1).call("refund_charge", {"charge_id": C2})
    assert "issue_refund" in observation["error"]["message"] and "submit" in observation["error"]["message"]


def test_calls_after_the_end_are_refused_and_not_recorded(v1: Case) -> None:
    episode = run(v1, [get_charge(C2), submit("DEFER")])
    observation = episode.call(*refund())
    assert observation["status"] == "error" and observation["error"]["code"] == "EPISODE_FINISHED"
    assert len(episode.steps) == 2
    assert world_state(episode) == world_state(Episode(v1))


def test_information_noise_does_not_change_the_score(v1: Case) -> None:
    noise = [
        ("refund_charge", {"charge_id": C2}),
        ("get_charge", '{"charge_id": '),
        ("get_charge", {"charge_id": "C9"}),
    ]
    trajectory = play(v1, [*noise, get_charge(C2), refund(), submit("DONE")])
    verdict = evaluate(v1, trajectory)
    assert (verdict.score, verdict.outcome) == (1, C.CASE_SUCCESS)
    d = verdict.diagnostics
    assert (d.info_calls, d.invalid_calls, d.first_action_step) == (3, 2, 4)
    assert d.tools_queried == ["get_charge"]


@pytest.mark.parametrize(("call", "status", "code"), [b[1:] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS])
def test_every_bad_call_replays_identically(v1: Case, call: Call, status: str, code: str) -> None:
    """The evaluator's replay reproduces every structured error (no false TRAJECTORY_MISMATCH)."""
    trajectory = play(v1, [call])
    verdict = evaluate(v1, trajectory)
    assert verdict.outcome not in (C.TRAJECTORY_MISMATCH, C.INVALID_TRAJECTORY)


@pytest.mark.parametrize("raw", [["C2"], 7], ids=["list", "number"])
def test_an_episode_with_non_object_arguments_replays_identically(v1: Case, raw: Any) -> None:
    episode = Episode(v1)
    observation = episode.call("get_charge", raw)
    assert observation["status"] == "error" and observation["error"]["code"] == "INVALID_ARGUMENTS"
    for call in (get_charge(C2), refund()):
        episode.call(*call)
    verdict = evaluate(v1, episode.trajectory())
    assert (verdict.score, verdict.outcome) == (1, C.CASE_SUCCESS)


@pytest.mark.parametrize("raw", [None, [], 42], ids=["none", "list", "number"])
def test_evaluate_never_raises_on_non_object_input(v1: Case, raw: Any) -> None:
    verdict = evaluate(v1, raw)  # type: ignore[arg-type]
    assert (verdict.score, verdict.outcome) == (0, C.INVALID_TRAJECTORY)


def test_results_placeholder_helper_is_resolved(v2: Case) -> None:
    """Guard for the test helper itself: Res resolves to the id the world really returned."""
    trajectory = play(v2, [get_charge(C2), refund(), ("get_refund", {"refund_id": Res("refund_id")})])
    assert trajectory.steps[2].observation["status"] == "ok"
    assert trajectory.steps[2].observation["record"]["fields"]["charge_id"] == C2
