"""One release case -> one SafeActBench case, with what the translation could not keep.

Every protocol maps onto its namesake here (docs/import.md): the release's expected actions are
tools without a target that return their result fields, its requirement conditions become
requirements on the fact records they hold for, its required information calls requirements on
the records those calls return, its `result:<commit>.<field>` references result references, and
its `simulated_trace` the reference solution.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

from ..authoring.tools import action_tool
from ..core.episode import DECIDE, SUBMIT
from ..core.model import (
    ActionCall,
    Case,
    Decision,
    ExpectedAction,
    InfoBudget,
    LegacyGold,
    Protocol,
    Record,
    Requirement,
    ResultRef,
    ScriptStep,
    StopGold,
    StopOutcome,
    result_refs,
)
from ..core.tool_spec import Param, ToolSpec
from .release_evidence import Evidence, Lookup, ParamType, param_type, requirements_for, slug
from .release_files import Release, ReleaseCase

RESULT = re.compile(r"^result:([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$")
UNORDERED = {"summary_facts", "dependency_receipts"}  # the release compares these as multisets
AGENT_GENERATED = {"idempotency_key"}
MAX_BUDGET = 120
# the release's information budget fields, as the case's `info_budget` holds them (part of the verdict)
BUDGET_FIELDS = {
    "max_calls": "max_info_calls",
    "min_calls": "min_info_calls",
    "min_distinct_tools": "min_distinct_info_tools",
}
DEFAULT_NOW = "2026-01-01T00:00:00Z"


class NotImportable(ValueError):
    """A case the importer cannot translate; the message says why."""


def _name(text: str, what: str) -> str:
    if slug(text) != text:
        raise NotImportable(f"{what} {text!r} is not a SafeActBench name (lower-case letters, digits, underscores)")
    return text


def to_refs(value: Any) -> Any:
    """Release arguments with `result:<commit>.<field>` strings as result references (nested ones as
    `{"result_of", "key"}` objects, which the evaluator resolves at any depth)."""
    if isinstance(value, str):
        hit = RESULT.match(value)
        return {"result_of": hit.group(1), "key": hit.group(2)} if hit else value
    if isinstance(value, dict):
        return {k: to_refs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_refs(v) for v in value]
    return value


def _top_refs(arguments: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in to_refs(arguments).items():
        is_ref = isinstance(value, dict) and set(value) == {"result_of", "key"}
        out[name] = ResultRef(**value) if is_ref else value
    return out


def _commits(data: dict[str, Any], protocol: Protocol) -> list[dict[str, Any]]:
    if protocol == Protocol.V1:
        template = data.get("key_action_template") or {}
        return [{"commit_id": "a1", "depends_on": [], **template}]
    workflow = data.get("workflow")
    commits = workflow.get("commits") if isinstance(workflow, dict) else workflow
    if not isinstance(commits, list) or not commits:
        raise NotImportable("no workflow commits")
    return commits


def action_tools(
    examples: dict[str, list[dict[str, Any]]],
    returns: dict[str, set[str]],
    vocabularies: dict[str, dict[str, list[str]]] | None = None,
) -> list[ToolSpec]:
    """A consequential tool per name, its parameters inferred from the argument values the case
    gives (as the release infers its published schemas: a `template_id` is an enum of its value, an
    argument with a controlled vocabulary an enum of it), without a target, returning its results."""
    specs = []
    for name, calls in examples.items():
        params: list[Param] = []
        names = list(dict.fromkeys(arg for call in calls for arg in call))
        for arg in names:
            value = next(call[arg] for call in calls if arg in call)
            kind: ParamType = "string" if isinstance(value, ResultRef) else param_type(value)
            items = None
            enum = (vocabularies or {}).get(name, {}).get(arg)
            if arg == "template_id" and isinstance(value, str):
                enum = sorted({str(call[arg]) for call in calls if arg in call} | set(enum or []))
            if kind == "array":
                items = param_type(value[0]) if value and not isinstance(value[0], list) else "string"
            params.append(
                Param(
                    name=_name(arg, "argument"),
                    type=kind,
                    description=f"{arg.replace('_', ' ')}",
                    required=all(arg in call for call in calls) and arg not in AGENT_GENERATED,
                    items=items,  # type: ignore[arg-type]
                    enum=[str(e) for e in enum] if enum and kind == "string" else None,
                    match="unordered" if arg in UNORDERED and kind == "array" else "exact",
                    harmless=arg in AGENT_GENERATED,
                )
            )
        for arg in sorted(AGENT_GENERATED - set(names)):
            params.append(Param(name=arg, type="string", description="a key you choose", required=False, harmless=True))
        description = f"{name.replace('_', ' ')} (returns {', '.join(sorted(returns[name]))})"
        specs.append(
            action_tool(
                _name(name, "tool"),
                description,
                target_type=None,
                target_param=None,
                params=params,
                returns=sorted(returns[name]),
            )
        )
    return specs


def origin(source: ReleaseCase, release: Release) -> str:
    """The imported case's `notes`: its catalog and provenance (dataset version, case hash, profile)."""
    return f"imported from the SafeAct release ({source.catalog.name}); {release.provenance(source).note()}"


def vocabulary(release: Release, data: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """The controlled vocabularies of the case's domain: tool -> argument -> values."""
    return release.vocabularies.get(str(data.get("env_id")), {})


class Translation:
    """The state of one case's translation: its evidence, requirements and what was lost."""

    def __init__(self, source: ReleaseCase, release: Release) -> None:
        self.source = source
        self.data = source.data
        self.vocabulary = vocabulary(release, source.data)
        self.notes = origin(source, release)
        self.evidence = Evidence.of(self.data)
        self.requirements: list[Requirement] = []
        self.lost: list[str] = []
        backend = release.backends.get(source.case_id)
        if backend == "world_materialized":
            self.lost.append(
                "world-materialized: only the evidence materialized for the case is imported, not the rest of "
                "the shared world (its near-miss records and paging over them)"
            )

    def note(self, text: str) -> None:
        if text not in self.lost:
            self.lost.append(text)

    # -- evidence ---------------------------------------------------------------------------
    def coverage(self) -> list[str]:
        """Requirements for the required information calls (the release's coverage check)."""
        ids = []
        calls = self.data.get("required_info_calls") or []
        for n, call in enumerate(calls, start=1):
            lookup = self.evidence.ensure_lookup(str(call.get("tool")), dict(call.get("arguments") or {}))
            record = lookup.records[0]
            req = Requirement(
                id=f"c{n}",
                ref=record.ref,
                field="version",
                op="exists",
                via=[slug(lookup.tool)],
                why="a required information call",
            )
            self.requirements.append(req)
            ids.append(req.id)
        return ids

    def conditions(self, prefix: str, requirement: dict[str, Any], action_args: dict[str, Any]) -> list[str]:
        """Requirements for the fact conditions of one release requirement that hold in the case."""
        ids: list[str] = []
        for n, condition in enumerate(requirement.get("supported_if_all") or [], start=1):
            source = condition.get("source", "fact")
            if source != "fact":
                continue  # action conditions: the exact argument match checks them; postconditions: `after`
            hits = self.evidence.matching(condition, action_args)
            if not hits:
                raise NotImportable(f"{requirement.get('requirement_id')}: no fact of the case satisfies {condition}")
            if len({r.ref for _, r in hits}) > 1:
                self.note("a condition several facts satisfy is bound to the fact the reference solution reads")
            lookup, record = self._read_by_reference(hits)
            why = str(requirement.get("description") or requirement.get("requirement_id") or "")
            made = requirements_for(f"{prefix}{n}", record, lookup, condition, action_args, why)
            self.requirements += made
            ids += [r.id for r in made]
        return ids

    def _read_by_reference(self, hits: list[tuple[Lookup, Record]]) -> tuple[Lookup, Record]:
        read = [(str(c.get("tool")), c.get("arguments") or {}) for c in self.trace_calls() if not c["action"]]
        for lookup, record in hits:
            if any(tool == lookup.tool and args == lookup.arguments for tool, args in read):
                return lookup, record
        return hits[0]

    def violations(self, prefix: str, requirement: dict[str, Any], action_args: dict[str, Any]) -> list[str]:
        """Requirements for the violation conditions that hold (what makes a V0 request wrong)."""
        ids: list[str] = []
        for n, violation in enumerate(requirement.get("violated_if_any") or [], start=1):
            conditions = [c for c in violation.get("all") or [] if c.get("source", "fact") == "fact"]
            if conditions and all(self.evidence.matching(c, action_args) for c in conditions):
                ids += self.conditions(f"{prefix}v{n}.", {**requirement, "supported_if_all": conditions}, action_args)
        return ids

    # -- the reference solution -------------------------------------------------------------
    def trace_calls(self) -> list[dict[str, Any]]:
        trace = self.data.get("simulated_trace") or {}
        events = trace.get("events") or []
        if events:
            return [
                {
                    "tool": e.get("tool"),
                    "arguments": e.get("arguments") or {},
                    "action": e.get("type") == "CONSEQUENTIAL_CALL",
                }
                for e in events
            ]
        calls = [
            {"tool": c.get("tool"), "arguments": c.get("arguments") or {}, "action": False}
            for c in trace.get("info_calls") or []
        ]
        if trace.get("consequential_call"):
            final = trace["consequential_call"]
            calls.append({"tool": final.get("tool"), "arguments": final.get("arguments") or {}, "action": True})
        return calls

    def reference(self, actions: list[ExpectedAction], terminal: dict[str, Any]) -> list[ScriptStep]:
        steps: list[ScriptStep] = []
        pending = list(actions)
        calls = self.trace_calls()
        if not calls:
            self.note("no simulated_trace: the reference reads the required lookups, then acts")
            calls = [{"tool": u.tool, "arguments": u.arguments, "action": False} for u in self.evidence.lookups]
            calls += [{"tool": a.tool, "arguments": a.arguments, "action": True} for a in actions]
        for call in calls:
            arguments = _top_refs(call["arguments"])
            if not call["action"]:
                steps.append(ScriptStep(tool=slug(str(call["tool"])), arguments=arguments))
                continue
            action = next((a for a in pending if a.tool == call["tool"] and _same(a.arguments, arguments)), None)
            if action is None:
                raise NotImportable(f"the simulated trace calls {call['tool']} as no expected action expects")
            pending.remove(action)
            plain = {k: v for k, v in arguments.items() if k not in AGENT_GENERATED}
            steps.append(ScriptStep(tool=action.tool, arguments=plain, action_id=action.id))
        terminal_tool = DECIDE if self.source.protocol == Protocol.LEGACY else SUBMIT
        return [*steps, ScriptStep(tool=terminal_tool, arguments=terminal)]


def _same(expected: dict[str, Any], called: dict[str, Any]) -> bool:
    def plain(args: dict[str, Any]) -> dict[str, Any]:
        return {
            k: (v.model_dump() if isinstance(v, ResultRef) else v) for k, v in args.items() if k not in AGENT_GENERATED
        }

    return plain(expected) == plain(called)


def _now(data: dict[str, Any], records: list[Record]) -> str:
    stamps = [str(r.fields["observed_at"]) for r in records if isinstance(r.fields.get("observed_at"), str)]
    legacy = re.match(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})", str(data.get("now") or ""))
    if legacy:
        return f"{legacy.group(1)}T{legacy.group(2)}:00Z"
    return max(stamps) if stamps else str(data.get("reference_time") or DEFAULT_NOW)


def _task(data: dict[str, Any], protocol: Protocol) -> str:
    task = str(data.get("user_goal") or data.get("title") or "").strip()
    inputs = data.get("task_inputs") or []
    if inputs:
        given = "; ".join(f"{i.get('parameter_path')} = {i.get('value')}" for i in inputs if isinstance(i, dict))
        task += f" Inputs: {given}."
    template = data.get("key_action_template")
    if protocol == Protocol.V0 and isinstance(template, dict):
        task += f" Requested action: {template.get('tool')} with arguments {template.get('arguments')}."
    if not task:
        raise NotImportable("no user_goal")
    return task


def _base(source: ReleaseCase, protocol: Protocol, t: Translation, tools: list[ToolSpec]) -> dict[str, Any]:
    data = source.data
    domain = slug(str(data.get("env_id") or data.get("domain") or "release"))
    shape = str(data.get("protocol_shape") or data.get("stratum") or protocol.value.lower())
    max_calls = int(data.get("max_info_calls") or 20)
    budget = max_calls + 8
    if budget > MAX_BUDGET:
        t.note(f"the information budget of {max_calls} calls is capped: the episode budget is {MAX_BUDGET} calls")
        budget = MAX_BUDGET
    records = t.evidence.records()
    limits = {mine: int(data[theirs]) for mine, theirs in BUDGET_FIELDS.items() if data.get(theirs) is not None}
    return {
        "info_budget": InfoBudget(**limits) if limits else None,
        "id": source.case_id,
        "protocol": protocol,
        "domain": domain,
        "family": f"release/{slug(shape)}",
        "task": _task(data, protocol),
        "now": _now(data, records),
        "budget": budget,
        "tools": t.evidence.tools([str(n) for n in data.get("info_tools") or []]) + tools,
        "records": records,
        "world_seed": hashlib.sha256(source.case_id.encode()).hexdigest()[:16],
        "notes": t.notes,
    }


def interactive_case(source: ReleaseCase, release: Release) -> tuple[Case, list[str]]:
    t = Translation(source, release)
    data, protocol = source.data, source.protocol
    for name in list(data.get("info_tools") or []) + [str(u.tool) for u in t.evidence.lookups]:
        _name(str(name), "information tool")
    for lookup in t.evidence.lookups:
        for arg in lookup.arguments:
            _name(str(arg), f"argument of {lookup.tool}")
    if protocol == Protocol.V0:
        return _stop_case(source, t), t.lost
    commits = _commits(data, protocol)
    coverage = t.coverage()
    by_postcondition = {p: c["commit_id"] for c in commits for p in c.get("postconditions") or []}
    actions: list[ExpectedAction] = []
    examples: dict[str, list[dict[str, Any]]] = {}
    returns: dict[str, set[str]] = {}
    shared: list[str] = []  # the case-level requirements gate the first action(s)
    for m, requirement in enumerate(data.get("requirements") or [], start=1):
        if isinstance(requirement, dict):
            shared += t.conditions(f"r0.{m}.", requirement, (commits[0].get("arguments") or {}))
    for n, commit in enumerate(commits, start=1):
        commit_id = str(commit.get("commit_id"))
        raw = commit.get("arguments") or {}
        arguments = {k: v for k, v in _top_refs(raw).items() if k not in AGENT_GENERATED}
        requires = [*coverage, *shared] if not commit.get("depends_on") else []
        for m, requirement in enumerate(commit.get("requirements") or [], start=1):
            if isinstance(requirement, str):
                producer = by_postcondition.get(requirement)
                if producer is not None and producer not in (commit.get("depends_on") or []):
                    t.note("a postcondition requirement on a non-predecessor is checked only through the order")
                continue
            requires += t.conditions(f"r{n}.{m}.", requirement, raw)
        actions.append(
            ExpectedAction(
                id=commit_id,
                tool=str(commit.get("tool")),
                target=None,
                arguments=arguments,
                requires=list(dict.fromkeys(requires)),
                after=list(commit.get("depends_on") or []),
            )
        )
        examples.setdefault(str(commit.get("tool")), []).append(dict(raw))
        returns.setdefault(str(commit.get("tool")), set()).update((commit.get("result_schema") or {}).keys())
    for action in actions:
        for ref in (r for v in action.arguments.values() for r in result_refs(v)):
            producer = next((a for a in actions if a.id == ref.result_of), None)
            if producer is None:
                raise NotImportable(f"{action.id}: its arguments cite the result of unknown commit {ref.result_of!r}")
            returns[producer.tool].add(ref.key)
    for keys in returns.values():
        if not keys:
            keys.add("receipt_id")
    extra = [str(n) for n in data.get("public_action_tools") or [] if n not in examples]
    if extra:
        t.note(f"{len(extra)} distractor action tool(s) not imported: the release publishes no parameters for them")
    case = Case(
        **_base(source, protocol, t, action_tools(examples, returns, vocabulary(release, data))),
        requirements=t.requirements,
        expected_actions=actions,
        reference=t.reference(actions, {"outcome": "DONE"}),
    )
    return case, t.lost


def _stop_case(source: ReleaseCase, t: Translation) -> Case:
    data = source.data
    outcome = str(data.get("expected_stop_outcome") or data.get("expected_gate") or "").upper()
    if outcome not in ("BLOCK", "DEFER"):
        raise NotImportable(f"expected_stop_outcome {outcome!r} is neither BLOCK nor DEFER")
    template = data.get("key_action_template")
    if not isinstance(template, dict):
        events = data.get("candidate_consequential_events") or []
        if not events:
            raise NotImportable("no key_action_template or candidate_consequential_events")
        template = events[0]
        t.note("a candidate workflow is represented by its first action (the one a compliant agent starts with)")
    requested = ActionCall(
        tool=_name(str(template.get("tool")), "tool"), arguments=dict(template.get("arguments") or {})
    )
    reads = t.coverage()
    for m, requirement in enumerate(data.get("requirements") or [], start=1):
        if not isinstance(requirement, dict):
            continue
        reads += t.violations(f"r{m}.", requirement, requested.arguments)
    decisive = next((r for r in reversed(t.requirements) if r.id.startswith("r")), None)
    requirements = [r.model_copy(update={"decisive": True}) if r is decisive else r for r in t.requirements]
    t.requirements = requirements
    tools = action_tools({requested.tool: [requested.arguments]}, {requested.tool: {"receipt_id"}}, t.vocabulary)
    t.note("the stop basis (missing, pending, expired, conflicting, forbidden) is not in the release")
    return Case(
        **_base(source, Protocol.V0, t, tools),
        requirements=requirements,
        stop=StopGold(
            outcome=StopOutcome.BLOCK if outcome == "BLOCK" else StopOutcome.DEFER,
            required_reads=list(dict.fromkeys(reads)),
            requested=requested,
        ),
        reference=t.reference([], {"outcome": outcome}),
    )


def legacy_case(source: ReleaseCase, release: Release) -> tuple[Case, list[str]]:
    data = source.data
    lost = [
        "Legacy: the evidence its tools would return is shown as a fixed evidence package (SafeActBench Legacy "
        "judges a fixed candidate with its evidence, without tools); the secondary confirm/claims gold is not "
        "scored (it is not in the release's primary metric either)"
    ]
    candidate = data.get("candidate_action") or {}
    arguments = candidate.get("arguments")
    if not isinstance(arguments, dict):
        arguments = dict(candidate.get("args") or {})
        if set(arguments) == {"final_action"}:  # the release wrote the call as text, not as arguments
            lost.append("the candidate action is a pseudo-call text (final_action), not structured arguments")
    decision = str(data.get("gold_decision") or "").upper()
    if decision not in ("ALLOW", "BLOCK", "DEFER"):
        raise NotImportable(f"gold_decision {data.get('gold_decision')!r} is not allow, block or defer")
    evidence = _legacy_evidence(source, release)
    if not evidence:  # a Legacy gold judged on nothing would be guessed, not judged
        raise NotImportable("no evidence record of the release matches the case: its evidence package would be empty")
    tool = _name(str(candidate.get("tool")), "tool")
    data_now = _now(data, evidence)
    case = Case(
        id=source.case_id,
        protocol=Protocol.LEGACY,
        domain=slug(str(data.get("env_id") or "release")),
        family=f"release/{slug(str(data.get('variant_type') or 'legacy'))}",
        task=str(data.get("user_goal") or "").strip() or "Judge the candidate action.",
        now=data_now,
        tools=action_tools({tool: [arguments]}, {tool: {"receipt_id"}}),
        records=evidence,
        world_seed=hashlib.sha256(source.case_id.encode()).hexdigest()[:16],
        legacy=LegacyGold(
            candidate=ActionCall(tool=tool, arguments=arguments), evidence=evidence, decision=Decision(decision)
        ),
        reference=[ScriptStep(tool=DECIDE, arguments={"decision": decision})],
        notes=origin(source, release),
    )
    return case, lost


def _legacy_evidence(source: ReleaseCase, release: Release) -> list[Record]:
    """Case-scoped: the case's own evidence records; catalog-authored: the world records its evidence
    tools answer for the ids the case names."""
    data = source.data
    records: list[Record] = []
    scoped = release.case_evidence.get(source.case_id)
    if scoped is not None:
        for n, item in enumerate(scoped, start=1):
            for m, fact in enumerate(item.get("facts") or [], start=1):
                fields = {k: v for k, v in fact.items() if k != "predicate"}
                records.append(Record(type=slug(str(fact.get("predicate") or "fact")), id=f"{n}.{m}", fields=fields))
        return records
    meta = data.get("metadata") or {}
    tools = set(meta.get("expected_evidence_tools") or [])
    for requirement in data.get("confirmation_requirements") or []:
        tools.update(requirement.get("evidence_tools") or [])
    named = set(_flat_values(data.get("relevant_ids") or {}))
    for record in release.worlds.get(str(data.get("env_id")), []):
        match = record.get("match") or {}
        if record.get("tool_name") in tools and all(str(v) in named for v in match.values()):
            fields = {"summary": record.get("summary"), **(record.get("data") or {})}
            records.append(
                Record(type=slug(str(record.get("tool_name"))), id=str(record.get("record_id")), fields=fields)
            )
    return records


def _flat_values(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _flat_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _flat_values(item)
    elif value is not None:
        yield str(value)
