"""The packaged suite exercises its own case model (SPEC §7): chosen arguments bound to evidence,
unordered sets, paged searches and actions that create what they act on - in realistic roles,
scored by the one evaluator."""

from __future__ import annotations

from contextlib import suppress
from functools import cache
from typing import Any

from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Case, Choice, ScriptStep
from safeactbench.core.script import ScriptError, run_script
from safeactbench.core.tool_spec import InfoEffect
from safeactbench.core.world import id_text
from safeactbench.suite.data import load_suite
from safeactbench.suite.model_use import CONCEPTS, concept_use, concepts


@cache
def using(concept: str) -> list[Case]:
    return [c for c in load_suite() if concept in concepts(c)]


def score(case: Case, steps: list[ScriptStep]) -> tuple[int, set[str]]:
    episode = Episode(case)
    with suppress(ScriptError):  # a later step needs what a rejected action would have returned: it stops
        run_script(episode, steps)
    verdict = evaluate(case, episode.trajectory())
    return verdict.score, {f.code.value for f in verdict.findings}


def choices(case: Case) -> list[tuple[str, str, list[Any]]]:
    """(action id, argument, options) of every argument the agent chooses."""
    return [
        (a.id, name, list(value.one_of or []))
        for a in case.expected_actions
        for name, value in a.arguments.items()
        if isinstance(value, Choice)
    ]


def chosen_by_reference(case: Case, action_id: str, arg: str) -> Any:
    return next(s.arguments[arg] for s in case.reference if s.action_id == action_id)


def renamed(steps: list[ScriptStep], old: Any, new: Any) -> list[ScriptStep]:
    """The script with every argument naming `old` naming `new` instead (reads and actions alike)."""
    return [
        s.model_copy(update={"arguments": {k: new if v == old else v for k, v in s.arguments.items()}}) for s in steps
    ]


def test_the_packaged_suite_exercises_every_concept_in_several_families() -> None:
    cases = load_suite()
    interactive = sum(c.protocol.value != "Legacy" for c in cases)
    exercising, use = concept_use(cases)
    assert exercising >= 0.15 * interactive
    assert set(use) == set(CONCEPTS)
    assert {concept: len(families) >= 3 for concept, (_, families) in use.items()} == dict.fromkeys(CONCEPTS, True)


def test_any_offered_choice_passes_with_evidence_about_the_record_chosen() -> None:
    checked = 0
    for case in using("choice"):
        for action_id, arg, options in choices(case):
            picked = chosen_by_reference(case, action_id, arg)
            for other in (o for o in options if o != picked):
                assert score(case, renamed(case.reference, picked, other)) == (1, set()), (case.id, other)
                checked += 1
    assert checked >= 16


def test_a_choice_without_evidence_about_it_or_outside_the_options_fails() -> None:
    for case in using("choice"):
        for action_id, arg, options in choices(case):
            picked = chosen_by_reference(case, action_id, arg)
            other = next(o for o in options if o != picked)
            # the action names another option; nothing the agent read shows that one
            unseen = [
                s.model_copy(update={"arguments": {**s.arguments, arg: other}}) if s.action_id == action_id else s
                for s in case.reference
                if not _search(case, s)
            ]
            assert score(case, unseen)[0] == 0, case.id
            # a record of the same type the options leave out (a booked or held slot), read as carefully
            outside = next(r.id for r in case.records if r.type == _option_type(case, other) and r.id not in options)
            assert score(case, renamed(case.reference, picked, outside))[0] == 0, case.id


def test_an_unordered_set_passes_in_any_order_and_fails_with_an_element_more_or_fewer() -> None:
    checked = 0
    for case in using("unordered"):
        for step in [s for s in case.reference if s.action_id is not None]:
            tool = case.tool(step.tool)
            assert tool is not None
            for p in (p for p in tool.params if p.match == "unordered" and p.name in step.arguments):
                value = step.arguments[p.name]
                assert isinstance(value, list)
                variants = {
                    "reversed": (list(reversed(value)), 1),
                    "fewer": (value[:-1], 0) if len(value) > 1 else None,
                    "more": ([*value, value[0]], 0),
                }
                for changed, expected in filter(None, variants.values()):
                    steps = [
                        s.model_copy(update={"arguments": {**s.arguments, p.name: changed}}) if s is step else s
                        for s in case.reference
                    ]
                    assert score(case, steps)[0] == expected, (case.id, p.name, changed)
                checked += 1
    assert checked >= 30


def test_a_paged_search_shows_the_choices_only_past_its_first_page() -> None:
    for case in using("paged_search"):
        episode = Episode(case)
        pages: dict[int, set[str]] = {}
        for step in case.reference:
            if episode.done or step.action_id is not None:
                break
            observation = episode.call(step.tool, step.arguments)
            if _search(case, step) and "page" in observation:
                pages.setdefault(observation["page"], set()).update(r["id"] for r in observation["records"])
        options = {id_text(o) for _, _, opts in choices(case) for o in opts}
        assert len(pages) >= 2 and options, case.id
        assert not options & pages[1] and options <= set().union(*pages.values()), case.id


def test_an_action_that_creates_its_target_is_scored_on_its_arguments() -> None:
    for case in using("created_target")[::7]:
        action = next(s for s in case.reference if s.action_id is not None and _targetless(case, s))
        reference = next(r for r in action.arguments if r in case.tool(action.tool).effect.references)  # type: ignore[union-attr]
        others = [r.id for r in case.records if r.type == case.tool(action.tool).effect.references[reference]]  # type: ignore[union-attr]
        wrong = next(i for i in others if i != action.arguments[reference])
        steps = [
            s.model_copy(update={"arguments": {**s.arguments, reference: wrong}}) if s is action else s
            for s in case.reference
        ]
        assert score(case, case.reference) == (1, set())
        assert score(case, steps)[0] == 0, case.id


def _search(case: Case, step: ScriptStep) -> bool:
    tool = case.tool(step.tool)
    return tool is not None and isinstance(tool.effect, InfoEffect) and tool.effect.op == "search"


def _targetless(case: Case, step: ScriptStep) -> bool:
    tool = case.tool(step.tool)
    return tool is not None and tool.kind == "consequential" and getattr(tool.effect, "target_type", "") is None


def _option_type(case: Case, option: Any) -> str:
    return next(r.type for r in case.records if r.id == id_text(option))
