"""A domain's written operating policies and how requirements are grounded in them (SPEC §7).

Every requirement must be justified by text the agent can read. A requirement is grounded by

- `task`: the requester states the fact (a context fact on the same record and field), or the
  request itself asks to use an earlier action's result (`result_of`);
- `tool:<name>`: the description of an action it gates names the field;
- `policy:<id>`: a policy record of the world that governs an action it gates and lists the
  field among its checks.

Policies are records of type `operating_policy` in every world of their domain, found with the policy tools
(`list_operating_policies` by the tool the agent is about to call, `get_operating_policy` by id).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..core.model import Case, Protocol, Record, Requirement, ref_type
from ..core.tool_spec import ActionEffect, ToolSpec
from .stops import is_identity
from .tools import get_tool, search_tool

POLICY_TYPE = "operating_policy"
ALL_ACTIONS = "*"


@dataclass(frozen=True)
class Policy:
    """One written operating policy: what must be verified before the actions it governs."""

    id: str
    title: str
    text: str
    tools: tuple[str, ...]  # the consequential tools it governs; ("*",) = every one of the domain
    checks: tuple[str, ...] = ()  # "record_type.field" an agent must verify before those actions


# every domain's worlds carry this one too: it is what makes a world event's staleness knowable
LIVE_RECORDS = Policy(
    "POL-LIVE-01",
    "Live records change while you work",
    "A record marked live (field live: true) is synchronized continuously from its source system, so its "
    "values and version can change during your work; while its sync_status is syncing, the values it shows "
    "are not yet current. Read a live record again immediately before an action that depends on it; an "
    "earlier read does not count.",
    (ALL_ACTIONS,),
)


def policy_tools(domain_title: str) -> list[ToolSpec]:
    """The two policy tools every domain offers."""
    fields = ["title", "applies_to", "checks", "text", "effective_from"]
    return [
        search_tool(
            "list_operating_policies",
            POLICY_TYPE,
            f"Search the written operating policies of {domain_title}: what must be verified before an action, "
            "and when a request must wait (DEFER) or be refused (BLOCK). Filter by the name of the tool you are "
            "about to call; without a filter, lists every policy.",
            {"tool": ("applies_to", "string", "the name of a consequential tool, e.g. the one you are about to call")},
            projection=fields,
        ),
        get_tool(
            "get_operating_policy", POLICY_TYPE, "policy_id", "Read one operating policy by id.", projection=fields
        ),
    ]


def policy_records(policies: Sequence[Policy], actions: Sequence[str], effective_from: str) -> list[Record]:
    """The policies as records of a world whose consequential tools are `actions`."""
    return [
        Record(
            type=POLICY_TYPE,
            id=p.id,
            fields={
                "title": p.title,
                "applies_to": list(actions) if ALL_ACTIONS in p.tools else list(p.tools),
                "checks": list(p.checks),
                "text": p.text,
                "effective_from": effective_from,
            },
        )
        for p in policies
    ]


# ---------------------------------------------------------------------------- grounding


def gating_tools(case: Case, req: Requirement) -> list[str]:
    """The consequential tools `req` gates: its actions' tools, or - for a required read or the
    decisive requirement of a stop case - the action the request asks for."""
    tools = [a.tool for a in case.expected_actions if req.id in a.requires]
    stop = case.stop
    if stop is not None and stop.requested is not None and (req.id in stop.required_reads or req.decisive):
        tools += [stop.requested.tool] if stop.requested.tool not in tools else []
    return tools


def record_type(req: Requirement) -> str:
    return ref_type(req.ref)


def mentions(text: str, field: str) -> bool:
    """Whether `text` names `field` (as written, or with spaces for underscores)."""
    words = {field, field.replace("_", " ")}
    return any(re.search(rf"(?i)(?<![a-z0-9_]){re.escape(w)}(?![a-z0-9_])", text) for w in words)


def grounds(case: Case, req: Requirement) -> list[str]:
    """Every text the agent can read that makes `req` necessary (empty: not grounded)."""
    found: list[str] = []
    named = any(c.ref == req.ref and (c.field == req.field or is_identity(req)) for c in case.context)
    if req.result_of is not None or named:  # the request states it (or names the record a stop is about)
        found.append("task")
    gating = gating_tools(case, req)
    for name in gating:
        tool = case.tool(name)
        if tool is not None and mentions(tool.description, req.field):
            found.append(f"tool:{name}")
    check = f"{record_type(req)}.{req.field}"
    for record in case.records:
        governs = set(gating) & set(record.fields.get("applies_to", []))
        if record.type == POLICY_TYPE and check in record.fields.get("checks", []) and governs:
            found.append(f"policy:{record.id}")
    return found


def grounding_problems(case: Case) -> Iterator[str]:
    """Requirements no readable text justifies, and policy records the policy tools cannot find."""
    if case.protocol == Protocol.LEGACY:
        return
    actions = {t.name for t in case.tools if isinstance(t.effect, ActionEffect)}
    for record in case.records:
        if record.type == POLICY_TYPE:
            unknown = set(record.fields.get("applies_to", [])) - actions
            if unknown:
                yield f"{record.ref} governs tools the case does not have: {sorted(unknown)}"
    for req in case.requirements:
        found = grounds(case, req)
        for cited in sorted(set(req.grounds) - set(found)):
            yield f"requirement {req.id} cites {cited!r}, which does not name {record_type(req)}.{req.field}"
        if not found:
            gating = ", ".join(gating_tools(case, req)) or "no action"
            yield (
                f"requirement {req.id} ({record_type(req)}.{req.field}, before {gating}) is not grounded: "
                "no task fact, tool description or policy record names it"
            )
