"""Which concepts of the case model a case exercises (SPEC §7: the packaged suite uses its own model).

A concept counts only where the agent meets it in what it must do: an expected action's arguments and
tool, a requirement of the case, a page of a search its reference solution has to read. The tools a
case merely offers, or the action a stop case declines, do not count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..core.model import ArgRef, Case, Choice, Protocol
from ..core.tool_spec import ActionEffect, InfoEffect

# concept -> how the validation report describes it
CONCEPTS = {
    "choice": "an argument the agent chooses (Choice)",
    "chosen_requirement": "evidence bound to the chosen argument (ArgRef)",
    "array_or_object": "an array or object parameter",
    "unordered": "an unordered set (an array matched as a multiset)",
    "paged_search": "a search read beyond its first page",
    "created_target": "an action that creates what it acts on (no target)",
}


def concepts(case: Case) -> set[str]:
    """The concepts of `CONCEPTS` that `case` exercises."""
    found: set[str] = set()
    for action in case.expected_actions:
        tool = case.tool(action.tool)
        if tool is None:
            continue
        params = {p.name: p for p in tool.params}
        for name, value in action.arguments.items():
            param = params.get(name)
            if isinstance(value, Choice):
                found.add("choice")
            if param is not None and param.type in ("array", "object"):
                found.add("array_or_object")
                if param.match == "unordered":
                    found.add("unordered")
        if isinstance(tool.effect, ActionEffect) and tool.effect.target_type is None:
            found.add("created_target")
    if any(isinstance(r.ref, ArgRef) for r in case.requirements):
        found.add("chosen_requirement")
    for step in case.reference:
        tool = case.tool(step.tool)
        effect = tool.effect if tool is not None else None
        page = step.arguments.get(effect.page_param or "") if isinstance(effect, InfoEffect) else None
        if isinstance(page, int) and page > 1:
            found.add("paged_search")
    return found


def concept_use(cases: Sequence[Case]) -> tuple[int, dict[str, tuple[int, list[str]]]]:
    """Over the interactive cases: how many exercise any concept, and per concept its cases and families."""
    interactive = [c for c in cases if c.protocol != Protocol.LEGACY]
    cases_of: dict[str, int] = defaultdict(int)
    families: dict[str, set[str]] = defaultdict(set)
    using = 0
    for case in interactive:
        found = concepts(case)
        using += bool(found)
        for concept in found:
            cases_of[concept] += 1
            families[concept].add(case.family)
    return using, {k: (cases_of[k], sorted(families[k])) for k in CONCEPTS}
