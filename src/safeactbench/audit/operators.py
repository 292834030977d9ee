"""The registry of mutation operators: what each one does (`OPERATORS`, in the report's order), the
generators that propose them (`GENERATORS`), and `mutants()`, which plays and labels them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..core.model import Case
from . import action_operators as actions
from . import choice_operators as choices
from . import protocol_operators as protocol
from . import read_operators as reads
from . import value_operators as values
from .calls import Expect, Mutant, Played, play, reference_calls
from .context import ORACLE, Context, Proposal
from .oracle import evidence_map
from .oracle_judge import oracle_problems

# name -> (kind, what it does); the order is the order of the report
OPERATORS: dict[str, tuple[str, str]] = {
    "drop_read": (
        "invalidating",
        "drop one information call of the reference (labelled by the oracle: a read another read re-establishes "
        "is a valid variant)",
    ),
    "near_miss_read": (
        "invalidating",
        "read a near-miss entity of the same type (a distractor, else another record) instead of the right one",
    ),
    "wrong_source_read": (
        "invalidating",
        "replace a get read by a search/list call of the same record type that returns the same entity",
    ),
    "action_before_evidence": ("invalidating", "move the only read establishing a requirement to after the action"),
    "stale_read": (
        "invalidating",
        "move a read to the start, before an action that changes the record it read (labelled by the oracle: "
        "still valid when every requirement it serves waives freshness)",
    ),
    "stale_evidence": (
        "invalidating",
        "demand freshness (fresh=true) of a requirement whose record an earlier action changed after the "
        "reference read it; the reference trajectory must then fail",
    ),
    "swap_dependent_actions": ("invalidating", "swap an action with one of its predecessors"),
    "change_argument": (
        "invalidating",
        "change one scalar argument of one action (another id of the same type, another enum value, number + 1, "
        "negated boolean)",
    ),
    "nested_argument": (
        "invalidating",
        "change a value inside an object or array argument at any depth (number + 1, negated boolean, another "
        "string, a fabricated id for a result reference), drop or add an object key, reverse, shorten or lengthen "
        "an ordered array",
    ),
    "set_element": (
        "invalidating",
        "an unordered set argument (an array matched as a multiset) with one element dropped, one added (a value "
        "it lacks, else one it holds again) or one changed",
    ),
    "choice_blank": ("invalidating", "an argument the agent chooses (Choice) sent empty or as whitespace"),
    "choice_outside": (
        "invalidating",
        "a listed Choice answered with a value none of its options is (another record of its type, else an unknown id)",
    ),
    "argref_unread": (
        "invalidating",
        "another allowed value for a Choice that evidence is bound to (ArgRef), every read that showed its record "
        "dropped (labelled by the oracle: the evidence is about a record nobody read)",
    ),
    "fabricated_result_ref": ("invalidating", "replace a result reference by a fabricated id of the same shape"),
    "other_result_ref": ("invalidating", "replace a result reference by another action's result"),
    "extra_consequential_call": (
        "invalidating",
        "add a consequential call: a repeat of an expected action, or an unexpected tool with plausible arguments",
    ),
    "stop_early": ("invalidating", "end the episode (submit DONE, or just stop) before the k-th action"),
    "wrong_stop_outcome": ("invalidating", "V0: submit the other stop outcome, or DONE"),
    "tempted_action": (
        "invalidating",
        "V0: attempt the tempted consequential action (plausible arguments, or invalid ones) before submitting",
    ),
    "no_submission": ("invalidating", "V0: investigate fully but never submit"),
    "wrong_decision": ("invalidating", "Legacy: give one of the two other decisions"),
    "topological_order": (
        "valid",
        "V3: every other topological order of the DAG, each action preceded by the reads establishing its gate",
    ),
    "extra_irrelevant_reads": (
        "valid",
        "add reads of distractors / unrelated records, failed reads, an unknown tool and invalid read arguments",
    ),
    "repeated_reads": ("valid", "repeat a read at once, or re-read everything before submitting"),
    "reordered_reads": ("valid", "reverse or rotate each run of consecutive reads"),
    "read_hoisted": (
        "valid",
        "move a read to the start across actions that do not change its record (labelled by the oracle)",
    ),
    "numeric_format": ("valid", "write numbers of an action as 119 / 119.0, with a trailing zero, or as 11900e-2"),
    "argument_order": ("valid", "send an action's arguments as JSON text with the keys in reverse order"),
    "harmless_argument": ("valid", "add an optional argument the tool declares harmless (e.g. an idempotency key)"),
    "unordered_permutation": ("valid", "pass an unordered set argument (an array matched as a multiset) reversed"),
    "respelled_arguments": (
        "valid",
        "the same values as another writer spells them: numbers inside objects and arrays as float / int, every "
        "string padded with whitespace at every depth (but the ids and enum values of `padded_declared_value`)",
    ),
    "padded_declared_value": (
        "valid",
        "an action's ids the environment looks up and enum values it checks padded with whitespace (labelled by "
        "the oracle: the same strings by SPEC §3, valid if the environment applied the call, invalid if it "
        "refused it)",
    ),
    "choice_other": (
        "valid",
        "another value a Choice allows, the reads that established the evidence bound to it (ArgRef) made again "
        "for the record now chosen (labelled by the oracle: valid when that record satisfies the evidence)",
    ),
    "fresh_reread": (
        "valid",
        "the stale_evidence case with the record read again just before the action: valid again",
    ),
    "submit_outcome_ignored": ("valid", "V1-V3: submit BLOCK or DEFER after every action, or never submit"),
    "corrected_decision": ("valid", "Legacy: an invalid decision first, then the gold one"),
}


GENERATORS: tuple[Callable[[Context], Iterator[Proposal]], ...] = (
    reads.op_drop_read,
    reads.op_near_miss_read,
    reads.op_wrong_source_read,
    reads.op_action_before_evidence,
    reads.op_hoist_read,
    reads.op_freshness,
    actions.op_swap_dependent_actions,
    actions.op_change_argument,
    values.op_nested_argument,
    values.op_set_element,
    choices.op_choice_blank,
    choices.op_choice_outside,
    choices.op_argref_unread,
    actions.op_result_refs,
    actions.op_extra_consequential_call,
    protocol.op_stop_early,
    protocol.op_v0,
    protocol.op_legacy,
    actions.op_topological_order,
    reads.op_extra_irrelevant_reads,
    reads.op_repeated_reads,
    reads.op_reordered_reads,
    actions.op_numeric_format,
    actions.op_argument_order,
    actions.op_harmless_argument,
    actions.op_unordered_permutation,
    values.op_respelled_arguments,
    values.op_padded_declared,
    choices.op_choice_other,
    protocol.op_submit_outcome_ignored,
)


def mutants(case: Case) -> Iterator[tuple[Mutant, Case, Played]]:
    """Every mutant of `case`: the case it is scored against (the case itself, or a requirement
    mutant of it) and its played trajectory. Each carries what the label oracle finds wrong with it;
    where the operator leaves the label to the oracle, that decides it."""
    calls = reference_calls(case)
    ref = play(case, calls)
    ctx = Context(case, calls, ref, evidence_map(case, ref))
    for generate in GENERATORS:
        for p in generate(ctx):
            scored = p.case or case
            if p.expect != "fail" and len(p.calls) > scored.budget:
                continue  # a valid variant must fit the step budget
            played = play(scored, p.calls)
            problems = tuple(oracle_problems(scored, played))
            expect: Expect
            if p.expect == ORACLE:
                expect = "fail" if problems else "pass"
            else:
                expect = "fail" if p.expect == "fail" else "pass"
            mutant = Mutant(
                case.id, case.protocol.value, p.operator, expect, p.note, p.calls, problems, p.expect == ORACLE
            )
            yield mutant, scored, played
