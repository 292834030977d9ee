"""Shorthands for declaring a domain's tools. They only build `ToolSpec` data."""

from __future__ import annotations

from typing import Any, Literal

from ..core.tool_spec import ActionEffect, CreateSpec, InfoEffect, Invariant, Operand, Param, ToolSpec


def arg(name: str) -> Operand:
    return Operand(arg=name)


def fld(name: str) -> Operand:
    return Operand(field=name)


def lit(value: Any) -> Operand:
    return Operand(value=value)


NOW = Operand(now=True)


def p_str(
    name: str, description: str, *, required: bool = True, enum: list[str] | None = None, harmless: bool = False
) -> Param:
    return Param(name=name, type="string", description=description, required=required, enum=enum, harmless=harmless)


def p_num(name: str, description: str, *, required: bool = True) -> Param:
    return Param(name=name, type="number", description=description, required=required)


def p_int(name: str, description: str, *, required: bool = True) -> Param:
    return Param(name=name, type="integer", description=description, required=required)


def p_bool(name: str, description: str, *, required: bool = True) -> Param:
    return Param(name=name, type="boolean", description=description, required=required)


def p_set(name: str, description: str, *, enum: list[str] | None = None, required: bool = True) -> Param:
    """An unordered set of strings (an array the evaluator compares as a multiset)."""
    return Param(
        name=name, type="array", items="string", match="unordered", description=description, enum=enum,
        required=required,
    )  # fmt: skip


def get_tool(
    name: str, record_type: str, id_param: str, description: str, projection: list[str] | None = None
) -> ToolSpec:
    """Read one record by id."""
    return ToolSpec(
        name=name,
        kind="information",
        description=description,
        params=[p_str(id_param, f"the {record_type.replace('_', ' ')} id")],
        effect=InfoEffect(op="get", record_type=record_type, id_param=id_param, projection=projection),
    )


def search_tool(
    name: str,
    record_type: str,
    description: str,
    filters: dict[str, tuple[str, str, str]],
    projection: list[str] | None = None,
    match: Literal["exact", "contains"] = "exact",
    roles: dict[str, str] | None = None,
    page_size: int | None = None,
) -> ToolSpec:
    """Search records; `filters` maps parameter -> (record field, param type, description). All optional.
    `roles`: parameter -> the record type whose ids its field holds, where `link_roles` cannot tell it
    from the field's name (a `requester_id` holding engineers' ids); "" for a field that holds ids of
    several types. `page_size`: the results come in pages of that many (an optional `page` parameter)."""
    params = [
        Param(name=p, type=t, description=d, required=False, role=(roles or {}).get(p))  # type: ignore[arg-type]
        for p, (_, t, d) in filters.items()
    ]
    if page_size is not None:
        params.append(p_int("page", f"the page of results, from 1 ({page_size} per page)", required=False))
    return ToolSpec(
        name=name,
        kind="information",
        description=description,
        params=params,
        effect=InfoEffect(
            op="search",
            record_type=record_type,
            filters={p: f for p, (f, _, _) in filters.items()},
            projection=projection,
            match=match,
            page_param="page" if page_size is not None else None,
            limit=page_size or InfoEffect.model_fields["limit"].default,
        ),
    )


def invariant(left: Operand, op: str, right: Operand, code: str, message: str) -> Invariant:
    return Invariant(left=left, op=op, right=right, code=code, message=message)  # type: ignore[arg-type]


def action_tool(
    name: str,
    description: str,
    *,
    target_type: str | None,
    target_param: str | None,
    params: list[Param],
    sets: dict[str, Operand] | None = None,
    creates: CreateSpec | None = None,
    invariants: list[Invariant] | None = None,
    references: dict[str, str] | None = None,
    expected_version_param: str | None = None,
    returns: list[str] | None = None,
) -> ToolSpec:
    """A consequential tool acting on one existing `target_type` record named by `target_param`, or -
    with neither - on none: it creates a record or returns results (`returns`: fresh ids)."""
    return ToolSpec(
        name=name,
        kind="consequential",
        description=description,
        params=params,
        effect=ActionEffect(
            target_type=target_type,
            target_param=target_param,
            references=references or {},
            invariants=invariants or [],
            sets=sets or {},
            creates=creates,
            expected_version_param=expected_version_param,
            returns=returns or [],
        ),
    )


def creates(record_type: str, id_prefix: str, result_key: str, **fields: Operand) -> CreateSpec:
    return CreateSpec(type=record_type, id_prefix=id_prefix, result_key=result_key, fields=fields)


def link_roles(tools: list[ToolSpec]) -> list[ToolSpec]:
    """The tools with each search filter on a link field declaring its role: a filter on field
    `<type>_id`, where `<type>` is a record type some get tool reads, holds ids of that type. A role
    declared already is kept ("" - a field of several types - is dropped), so the roles an agent sees
    are the domain's declaration, identical in every case that offers the tool."""
    readable = {t.effect.record_type for t in tools if isinstance(t.effect, InfoEffect) and t.effect.op == "get"}
    out: list[ToolSpec] = []
    for tool in tools:
        effect = tool.effect
        if not isinstance(effect, InfoEffect) or effect.op != "search":
            out.append(tool)
            continue
        params = []
        for param in tool.params:
            field = effect.filters.get(param.name, "")
            role = param.role
            if role is None and field.endswith("_id") and field.removesuffix("_id") in readable:
                role = field.removesuffix("_id")
            params.append(param.model_copy(update={"role": role or None}))
        out.append(tool.model_copy(update={"params": params}))
    return out
