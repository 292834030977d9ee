"""Mutation operators on the information calls (reads) of a reference call script."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..core.episode import SUBMIT
from ..core.tool_spec import InfoEffect
from .calls import Call
from .context import ORACLE, Context, Proposal, before_submit, describe, moved, with_args, without
from .oracle import returned

# -- evidence operators (labelled by the oracle) -----------------------------------------------


def op_drop_read(ctx: Context) -> Iterator[Proposal]:
    for i in ctx.reads:
        yield Proposal("drop_read", ORACLE, f"drop step {i} {describe(ctx.calls[i])}", tuple(without(ctx.calls, i)))


def op_near_miss_read(ctx: Context) -> Iterator[Proposal]:
    for i in ctx.reads:
        found = ctx.get_ref(ctx.calls[i])
        if found is None:
            continue
        ref, id_param = found
        other = ctx.near_miss(ref)
        if other is None:
            continue
        calls = list(ctx.calls)
        calls[i] = with_args(ctx.calls[i], **{id_param: other})
        yield Proposal("near_miss_read", ORACLE, f"step {i}: read {other} instead of {ref}", tuple(calls))


def op_wrong_source_read(ctx: Context) -> Iterator[Proposal]:
    records = {r.ref: r for r in ctx.case.records}
    for i in ctx.reads:
        found = ctx.get_ref(ctx.calls[i])
        if found is None or found[0] not in records:
            continue
        record = records[found[0]]
        for tool in ctx.case.tools:
            effect = tool.effect
            if not isinstance(effect, InfoEffect) or effect.op != "search" or effect.record_type != record.type:
                continue
            param = next(
                (
                    p
                    for p, f in sorted(effect.filters.items())
                    if isinstance(record.fields.get(f), str) and record.fields[f].strip()
                ),
                None,
            )
            if param is None:
                continue
            calls = list(ctx.calls)
            calls[i] = Call(tool.name, {param: record.fields[effect.filters[param]]})
            yield Proposal(
                "wrong_source_read", ORACLE, f"step {i}: {describe(calls[i])} instead of a get", tuple(calls)
            )


def op_action_before_evidence(ctx: Context) -> Iterator[Proposal]:
    for j in ctx.actions:
        action_id = ctx.calls[j].action_id
        assert action_id is not None
        sole = sorted(
            {
                steps[0]
                for steps in ctx.evidence.get(action_id, {}).values()
                if len(steps) == 1 and steps[0] >= 0 and ctx.is_read(ctx.calls[steps[0]])
            }
        )
        for i in sole:
            yield Proposal(
                "action_before_evidence",
                ORACLE,
                f"{action_id} (step {j}) before its evidence {describe(ctx.calls[i])}",
                tuple(moved(ctx.calls, i, j)),
            )


def op_hoist_read(ctx: Context) -> Iterator[Proposal]:
    actions = ctx.actions
    if not actions:
        return
    for i in ctx.reads:
        if i < actions[0]:
            continue
        read_refs = {f"{r.get('type')}:{r.get('id')}" for r in returned(ctx.ref.trajectory.steps[i].observation)}
        crossed = [j for j in actions if j < i]
        changed = any(
            ctx.ref.versions[j + 1].get(ref) != ctx.ref.versions[j].get(ref) for j in crossed for ref in read_refs
        )
        operator = "stale_read" if changed else "read_hoisted"
        yield Proposal(
            operator, ORACLE, f"step {i} {describe(ctx.calls[i])} moved to the start", tuple(moved(ctx.calls, i, 0))
        )


def op_reordered_reads(ctx: Context) -> Iterator[Proposal]:
    runs: list[list[int]] = []
    for i in ctx.reads:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        if len(run) < 2:
            continue
        block = [ctx.calls[i] for i in run]
        orders = [("reversed", block[::-1])]
        if len(block) >= 3:
            orders.append(("rotated", block[1:] + block[:1]))
        for label, order in orders:
            calls = [*ctx.calls[: run[0]], *order, *ctx.calls[run[-1] + 1 :]]
            yield Proposal("reordered_reads", ORACLE, f"steps {run[0]}-{run[-1]} {label}", tuple(calls))


def op_repeated_reads(ctx: Context) -> Iterator[Proposal]:
    for i in ctx.reads:
        calls = [*ctx.calls[: i + 1], ctx.calls[i], *ctx.calls[i + 1 :]]
        yield Proposal("repeated_reads", ORACLE, f"step {i} {describe(ctx.calls[i])} twice", tuple(calls))
    reads = [ctx.calls[i] for i in ctx.reads]
    if reads:
        yield Proposal(
            "repeated_reads",
            ORACLE,
            "every read again before submitting",
            tuple(before_submit(ctx, ctx.calls, reads)),
        )


def op_freshness(ctx: Context) -> Iterator[Proposal]:
    """Requirement mutants: a requirement that waives freshness, whose record changed between the
    read that established it and the gate, made to demand it (and then re-read before the gate)."""
    for j in ctx.actions:
        action_id = ctx.calls[j].action_id
        assert action_id is not None
        action = next(a for a in ctx.case.expected_actions if a.id == action_id)
        for req_id in action.requires:
            req = ctx.case.requirement(req_id)
            steps = ctx.evidence.get(action_id, {}).get(req_id, [])
            if req.fresh or not isinstance(req.ref, str) or not steps:
                continue
            if all(ctx.ref.versions[s + 1].get(req.ref) == ctx.ref.versions[j].get(req.ref) for s in steps if s >= 0):
                continue  # nothing changed the record in between: freshness would not matter
            demanding = ctx.case.model_copy(
                update={
                    "requirements": [
                        r.model_copy(update={"fresh": True}) if r.id == req_id else r for r in ctx.case.requirements
                    ]
                }
            )
            note = f"{action_id}: {req_id} ({req.ref}.{req.field}) must be fresh"
            yield Proposal("stale_evidence", ORACLE, note, tuple(ctx.calls), demanding)
            reread = next((ctx.calls[s] for s in reversed(steps) if s >= 0 and ctx.is_read(ctx.calls[s])), None)
            if reread is not None:
                calls = [*ctx.calls[:j], reread, *ctx.calls[j:]]
                yield Proposal("fresh_reread", ORACLE, f"{note}; re-read before it", tuple(calls), demanding)


# -- valid variants labelled by construction ----------------------------------------------------


def op_extra_irrelevant_reads(ctx: Context) -> Iterator[Proposal]:
    distractor_reads = [c for c in (ctx.read_of(d) for d in ctx.case.distractors) if c is not None]
    if distractor_reads:
        yield Proposal("extra_irrelevant_reads", "pass", "read every distractor first", (*distractor_reads, *ctx.calls))
    required = {r.ref for r in ctx.case.requirements if isinstance(r.ref, str)}
    unrelated = [c for c in (ctx.read_of(r.ref) for r in ctx.case.records if r.ref not in required) if c is not None][
        :4
    ]
    if unrelated:
        calls: list[Call] = []
        pool = itertools.cycle(unrelated)
        for call in ctx.calls:
            if call.tool == SUBMIT:
                calls.append(next(pool))
            calls.append(call)
            if call.action_id is not None:
                calls.append(next(pool))
        yield Proposal("extra_irrelevant_reads", "pass", "an unrelated read after every action", tuple(calls))
    noise: list[Call] = [Call("no_such_tool", {"x": 1})]
    getter = next((t for t in ctx.case.tools if isinstance(t.effect, InfoEffect) and t.effect.op == "get"), None)
    if getter is not None:
        assert isinstance(getter.effect, InfoEffect) and getter.effect.id_param is not None
        noise += [Call(getter.name, {getter.effect.id_param: "NO-SUCH-ID-0"}), Call(getter.name, {})]
        noise.append(Call(getter.name, {getter.effect.id_param: 12345}))
    search = next((t for t in ctx.case.tools if isinstance(t.effect, InfoEffect) and t.effect.op == "search"), None)
    if search is not None:
        assert isinstance(search.effect, InfoEffect)
        noise.append(Call(search.name, {sorted(search.effect.filters)[0]: "no such value at all"}))
    yield Proposal(
        "extra_irrelevant_reads", "pass", "failed reads, an unknown tool, bad arguments first", (*noise, *ctx.calls)
    )
