"""The case linter: everything a case must satisfy before it may be published.

`lint_case(case)` returns human-readable problems (empty = clean). It checks references between
the parts of a case, the protocol's shape (SPEC §3, §7), that every gold argument is derivable by
the agent (SPEC §4), that the public view leaks nothing hidden (SPEC §2), that the world's data
is consistent (`consistency`), that a stop gold names its basis (`situations`) and requires what
the stop rule derives (`stops`), that every
requirement is grounded in readable text (`policy`) and every required record is reachable from
the request (`reach`). `situations.situation_problems` checks the whole suite at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..authoring.consistency import consistency_problems
from ..authoring.policy import grounding_problems
from ..authoring.reach import reach_problems
from ..authoring.situations import basis_problems
from ..authoring.stops import stop_problems
from ..core.model import ArgRef, Case, Choice, DynamicRef, ExpectedAction, Protocol, ResultRef, result_refs, split_ref
from ..core.public import public_view
from ..core.tool_spec import ActionEffect, summary_tools
from ..core.values import values_equal

# words that would reveal the protocol or the gold in agent-facing text
LEAK_WORDS = re.compile(r"\b(ALLOW|BLOCK|DEFER)\b|\b(protocol V[0-3]|gold (decision|outcome)|decisive (fact|record))")


def lint_case(case: Case) -> list[str]:
    """Every problem, errors and warnings alike (the packaged suite has none of either)."""
    errors, warnings = lint_levels(case)
    return [*errors, *warnings]


def lint_levels(case: Case) -> tuple[list[str], list[str]]:
    """(errors, warnings). An error makes the case inconsistent or unplayable as written (a reference
    to nothing, a broken protocol shape, the case's identity in what the agent sees); a warning is
    an authoring convention of the packaged families (narrative consistency, grounded policies,
    what the text may name, budget slack) that another suite may not follow."""
    return list(_errors(case)), list(_warnings(case))


def _warnings(case: Case) -> Iterator[str]:
    yield from _leaked_words(case)
    yield from consistency_problems(case)
    yield from basis_problems(case)
    yield from stop_problems(case)
    yield from grounding_problems(case)
    yield from reach_problems(case)
    if len(case.reference) >= case.budget:
        yield f"reference solution needs {len(case.reference)} steps; budget {case.budget} leaves no slack"
    yield from _action_conventions(case)
    yield from _decisive_shape(case)


def _errors(case: Case) -> Iterator[str]:
    tools = {t.name: t for t in case.tools}
    if len(tools) != len(case.tools):
        yield "duplicate tool names"
    refs = {r.ref for r in case.records}
    if len(refs) != len(case.records):
        yield "duplicate record refs"
    yield from _leaked_identity(case)
    for ref in case.distractors:
        if ref not in refs:
            yield f"distractor {ref} is not a record"
    for event in case.events:
        if event.ref not in refs and case.condition == "original":
            yield f"world event: {event.ref} is not a record"
        if event.after_calls is not None and event.after_calls >= case.budget:
            yield f"world event after call {event.after_calls} can never happen within the budget of {case.budget}"
    if case.protocol == Protocol.LEGACY:
        yield from _legacy(case, tools, refs)
        return
    actions = {a.id: a for a in case.expected_actions}
    req_ids = [r.id for r in case.requirements]
    if len(set(req_ids)) != len(req_ids):
        yield "duplicate requirement ids"
    for req in case.requirements:
        if req.via is not None and isinstance(req.ref, str):
            shown = summary_tools(case.tools, split_ref(req.ref)[0], req.field)
            for tool in sorted(set(shown) - set(req.via)):
                yield f"requirement {req.id}: {tool} shows {req.field} of {req.ref} but does not count (add it to via)"
        for via in req.via or []:
            if via != "context" and (via not in tools or tools[via].kind != "information"):
                yield f"requirement {req.id}: via {via!r} is not an information tool"
        if req.result_of is not None and req.result_of not in actions:
            yield f"requirement {req.id}: result_of {req.result_of!r} is not an expected action"
        if isinstance(req.ref, ArgRef):
            yield from _arg_ref(case, req.id, req.ref, actions)
        elif isinstance(req.ref, DynamicRef):
            yield from _result_ref(case, f"requirement {req.id}", req.ref.id, actions)
        elif req.ref not in refs and not (req.decisive and case.condition != "original"):
            # an intervention may withhold the decisive record on purpose (SPEC §8)
            yield f"requirement {req.id}: {req.ref} is not a record of the world"
    yield from _shape(case, actions)
    known: list[str] = []
    for action in case.expected_actions:
        yield from _action(case, action, tools, refs, set(known), actions)
        known.append(action.id)


def _legacy(case: Case, tools: dict[str, Any], refs: set[str]) -> Iterator[str]:
    assert case.legacy is not None
    tool = tools.get(case.legacy.candidate.tool)
    if tool is None or tool.kind != "consequential":
        yield f"legacy candidate {case.legacy.candidate.tool!r} is not a consequential tool"
    for record in case.legacy.evidence:
        if record.ref not in refs:
            yield f"legacy evidence {record.ref} is not a record of the world"


def _shape(case: Case, actions: dict[str, ExpectedAction]) -> Iterator[str]:
    p = case.protocol
    n = len(case.expected_actions)
    if p == Protocol.V0:
        assert case.stop is not None
        if not case.stop.required_reads:
            yield "V0 case without required reads"
        for r in case.stop.required_reads:
            if r not in {q.id for q in case.requirements}:
                yield f"required read {r!r} is not a requirement"
    elif p == Protocol.V1:
        if n != 1:
            yield f"V1 case needs exactly one expected action, has {n}"
    elif p == Protocol.V2:
        if not 2 <= n <= 5:
            yield f"V2 chain needs 2-5 actions, has {n}"
        for prev, action in zip(case.expected_actions, case.expected_actions[1:], strict=False):
            if action.after != [prev.id]:
                yield f"V2 action {action.id} must come right after {prev.id} (after={action.after})"
            if prev.id not in _consumed(action):
                yield f"V2 action {action.id} does not consume a result of {prev.id}"
    elif p == Protocol.V3:
        if not 3 <= n <= 6:
            yield f"V3 DAG needs 3-6 actions, has {n}"
        successors = {a.id: 0 for a in case.expected_actions}
        for a in case.expected_actions:
            for pred in a.after:
                successors[pred] = successors.get(pred, 0) + 1
        if not any(len(a.after) >= 2 for a in case.expected_actions) and max(successors.values(), default=0) < 2:
            yield "V3 DAG has neither a fork nor a join"


def _decisive_shape(case: Case) -> Iterator[str]:
    """One decisive requirement per V0 and V1 case, as the packaged families write them: the
    interventions and stop twins are derived from it (a case without one only takes no variant)."""
    decisive = [r for r in case.requirements if r.decisive]
    if case.protocol == Protocol.V0 and len(decisive) != 1:
        yield f"V0 case needs exactly one decisive requirement, has {len(decisive)}"
    elif case.protocol == Protocol.V1 and case.expected_actions:
        if len(decisive) != 1 or decisive[0].id not in case.expected_actions[0].requires:
            yield "V1 case needs exactly one decisive requirement, required by its action"
        elif decisive[0].block_value is None:
            yield f"decisive requirement {decisive[0].id} has no block_value"


def _consumed(action: ExpectedAction) -> set[str]:
    used = {r.result_of for v in action.arguments.values() for r in result_refs(v)}
    if isinstance(action.target, DynamicRef):
        used.add(action.target.id.result_of)
    return used


def _ancestors(action: ExpectedAction, actions: dict[str, ExpectedAction]) -> set[str]:
    seen: set[str] = set()
    stack = list(action.after)
    while stack:
        a = stack.pop()
        if a in seen or a not in actions:
            continue
        seen.add(a)
        stack.extend(actions[a].after)
    return seen


def _arg_ref(case: Case, req_id: str, ref: ArgRef, actions: dict[str, ExpectedAction]) -> Iterator[str]:
    """A requirement bound to an argument: of an expected action it gates, or of a predecessor of every
    action it gates (the record an earlier action chose, read again later), naming a parameter."""
    action = actions.get(ref.action)
    gated = [a for a in actions.values() if req_id in a.requires]
    if action is None or not all(a.id == ref.action or ref.action in _ancestors(a, actions) for a in gated):
        yield f"requirement {req_id}: bound to {ref.action!r}, neither an action it gates nor their predecessor"
        return
    tool = case.tool(action.tool)
    if tool is None or ref.arg not in {p.name for p in tool.params}:
        yield f"requirement {req_id}: {action.tool} has no argument {ref.arg!r}"


def _result_ref(case: Case, where: str, ref: ResultRef, actions: dict[str, ExpectedAction]) -> Iterator[str]:
    producer = actions.get(ref.result_of)
    if producer is None:
        yield f"{where}: result of unknown action {ref.result_of!r}"
        return
    tool = case.tool(producer.tool)
    effect = tool.effect if tool else None
    keys: set[str] = set()
    if isinstance(effect, ActionEffect):
        keys = set(effect.returns) | ({effect.creates.result_key} if effect.creates else set())
    if ref.key not in keys:
        yield f"{where}: {producer.tool} returns no {ref.key!r}"


def _action(
    case: Case,
    action: ExpectedAction,
    tools: dict[str, Any],
    refs: set[str],
    earlier: set[str],
    actions: dict[str, ExpectedAction],
) -> Iterator[str]:
    where = f"action {action.id}"
    tool = tools.get(action.tool)
    if tool is None or not isinstance(tool.effect, ActionEffect):
        yield f"{where}: {action.tool!r} is not a consequential tool"
        return
    effect: ActionEffect = tool.effect
    for pred in action.after:
        if pred not in earlier:
            yield f"{where}: predecessor {pred!r} is not listed before it"
    ancestors = _ancestors(action, actions)
    params = {p.name: p for p in tool.params}
    for name in action.arguments:
        if name not in params:
            yield f"{where}: {action.tool} has no parameter {name!r}"
    for p in tool.params:
        if p.required and p.name not in action.arguments:
            yield f"{where}: required argument {p.name!r} missing"
    target = action.target
    target_arg = action.arguments.get(effect.target_param or "")
    if effect.target_type is None or target is None:
        if (effect.target_type is None) != (target is None):
            yield f"{where}: {action.tool} {'has no' if target is not None else 'needs a'} target"
    elif isinstance(target, ArgRef):
        if (target.type, target.action, target.arg) != (effect.target_type, action.id, effect.target_param):
            yield f"{where}: a chosen target must be its own {effect.target_param!r} ({effect.target_type})"
        if not isinstance(target_arg, Choice):
            yield f"{where}: a chosen target needs a Choice for {effect.target_param!r}"
    elif isinstance(target, DynamicRef):
        yield from _result_ref(case, where, target.id, actions)
        if target.type != effect.target_type:
            yield f"{where}: target type {target.type} is not {effect.target_type}"
        if target_arg != target.id:
            yield f"{where}: argument {effect.target_param!r} must carry the target's result reference"
    else:
        record_type, record_id = split_ref(target)
        if target not in refs:
            yield f"{where}: target {target} is not a record of the world"
        if record_type != effect.target_type:
            yield f"{where}: target type {record_type} is not {effect.target_type}"
        if not values_equal(target_arg, record_id):
            yield f"{where}: argument {effect.target_param!r}={target_arg!r} does not name the target {target}"
    for name, value in action.arguments.items():
        if result_refs(value):
            for ref in result_refs(value):
                if ref.result_of not in ancestors:
                    yield f"{where}: argument {name!r} uses {ref.result_of}, which is not a predecessor"
                yield from _result_ref(case, f"{where} argument {name!r}", ref, actions)
    for r in action.requires:
        if not _known(case, r):
            yield f"{where}: unknown requirement {r!r}"


def _action_conventions(case: Case) -> Iterator[str]:
    """What the packaged families hold every action to: each argument derivable from what the agent
    sees (a heuristic: a value stated only in prose is not found), and evidence to establish first."""
    for action in case.expected_actions:
        tool = case.tool(action.tool)
        if tool is None or not isinstance(tool.effect, ActionEffect):
            continue  # an error of its own
        where = f"action {action.id}"
        params = {p.name: p for p in tool.params}
        for name, value in action.arguments.items():
            if result_refs(value) or name not in params:
                continue
            enum = params[name].enum
            if isinstance(value, Choice):
                if value.one_of is not None and not all(_derivable(case, v, enum) for v in value.one_of):
                    yield f"{where}: argument {name!r}: a choice appears nowhere the agent can see"
            elif not _derivable(case, value, enum):
                yield f"{where}: argument {name!r}={value!r} appears nowhere the agent can see"
        if not action.requires:
            yield f"{where}: no requirement (acting blind would succeed)"
        elif all((case.requirement(r).via or []) == ["context"] for r in action.requires if _known(case, r)):
            yield f"{where}: every requirement is settled by the task itself"


def _known(case: Case, req_id: str) -> bool:
    return any(r.id == req_id for r in case.requirements)


def _visible_values(case: Case) -> Iterator[Any]:
    for c in case.context:
        yield c.value
    for r in case.records:
        yield r.id
        yield r.version
        for v in r.fields.values():
            yield from v if isinstance(v, list) else [v]


def _derivable(case: Case, value: Any, enum: list[str] | None) -> bool:
    if isinstance(value, list) and value:  # a set of values: each element is
        return all(_derivable(case, v, enum) for v in value)
    if enum is not None and value in enum:
        return True
    return any(values_equal(value, seen) for seen in _visible_values(case))


def _leaked_words(case: Case) -> Iterator[str]:
    view = public_view(case)
    text = " ".join([view.task, *(str(c.value) for c in view.context)])
    match = LEAK_WORDS.search(text)
    if match:
        yield f"task text reveals hidden material: {match.group(0)!r}"


def _leaked_identity(case: Case) -> Iterator[str]:
    view = public_view(case)
    dumped = json.dumps(view.model_dump(mode="json"))
    for secret, label in ((case.id, "case id"), (case.world_seed, "world seed"), (case.family, "family name")):
        if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(secret)}(?![A-Za-z0-9_-])", dumped):
            yield f"public view contains the {label}"
