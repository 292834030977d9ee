"""The audit's label oracle is independent of the evaluator: its modules import nothing of the
evaluator, the ledger, the world or their value rule (read with `ast`, lazy imports included, through
every project module they import), and yet its own value rule, its own replay of record versions and
its binding of chosen records agree with the engine's on the cases."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import safeactbench
from safeactbench.audit import Call, mutants, oracle_problems, play, reference_calls, sample_cases
from safeactbench.audit.oracle import record_versions, resolved_ref
from safeactbench.audit.oracle_values import holds, same
from safeactbench.core.evaluator import evaluate
from safeactbench.core.values import compare, values_equal
from safeactbench.suite.data import load_suite
from test_audit_concepts import concept_cases, filing_case
from test_case_concepts import chosen_card_case

PACKAGE = Path(safeactbench.__file__).resolve().parent
ORACLE = ("audit.oracle", "audit.oracle_judge", "audit.oracle_values", "audit.played")
FORBIDDEN = {
    f"safeactbench.core.{m}"
    for m in ("values", "world", "ledger", "evaluator", "replay", "action_check", "diagnosis", "episode")
}


def _path(module: str) -> Path | None:
    base = PACKAGE.parent.joinpath(*module.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.exists()), None)


def imported(module: str) -> set[str]:
    """The project modules `module`'s code imports, at the top or inside functions."""
    path = _path(module)
    assert path is not None, module
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found |= {f"{base}.{a.name}" if _path(f"{base}.{a.name}") else base for a in node.names}
    return {m for m in found if m.startswith("safeactbench")}


def reached(start: str) -> set[str]:
    """Every project module reachable from `start` through imports (a package's __init__, which
    Python runs on the way, is not the importer's code and is not followed)."""
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for target in imported(module):
            path = _path(target)
            if path is not None and path.name != "__init__.py":
                todo.append(target)
    return seen


def test_the_oracle_imports_none_of_the_evaluators_modules() -> None:
    # the reader follows imports: the scripts the audit plays do reach the world
    assert "safeactbench.core.model" in reached("safeactbench.audit.oracle_judge")
    assert "safeactbench.core.world" in reached("safeactbench.audit.calls")
    for name in ORACLE:
        module = f"safeactbench.{name}"
        assert not reached(module) & FORBIDDEN, (module, sorted(reached(module) & FORBIDDEN))


def test_the_import_reader_sees_lazy_imports() -> None:
    assert "safeactbench.core.evaluator" in imported("safeactbench.audit.run")
    assert "safeactbench.suite.data" in imported("safeactbench.audit.run")  # inside audit_command


# ---------------------------------------------------------------------------- the same value rule

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 2.5, -1.0]),
    st.sampled_from(["a", " a", "a\t", "b", "", "  ", "A"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xy"), inner, max_size=2),
    max_leaves=8,
)


def respelt(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value) if isinstance(value, int) else (int(value) if value.is_integer() else value)
    if isinstance(value, str):
        return f" {value}  "
    if isinstance(value, list):
        return [respelt(v) for v in value]
    return {k: respelt(v) for k, v in value.items()}


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_the_oracle_compares_values_as_the_engine_does_at_every_depth(a: Any, b: Any) -> None:
    assert same(a, b) == values_equal(a, b)
    assert same(a, respelt(a)) and values_equal(a, respelt(a))


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(["eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "exists"]), values)
def test_the_oracle_reads_requirement_operators_as_the_engine_does(a: Any, op: str, b: Any) -> None:
    assert holds(a, op, b) == compare(a, op, b)


# ---------------------------------------------------------------------------- its own replay


def test_the_oracle_replays_record_versions_as_the_world_keeps_them() -> None:
    """Versions from what the trajectory shows (records, applied actions, world events) equal the
    world's, step by step, on references and mutants with actions and events."""
    checked = 0
    for case in [*concept_cases(), *sample_cases(load_suite(), 12, seed=5)]:
        for _, scored, played in list(mutants(case))[:30]:
            replayed = record_versions(scored, played.trajectory.steps)
            assert [{r: v[r] for r in w} for v, w in zip(replayed, played.versions, strict=True)] == played.versions
            checked += 1
    assert checked > 300


def test_an_arg_ref_binds_the_record_the_agents_call_named() -> None:
    """The reference chooses card C-2 and reads it; an agent that reads C-2 but refunds to C-1 acted
    on evidence about the wrong card: the oracle binds the requirement to C-1 (the call's), as the
    evaluator does."""
    case = chosen_card_case()
    calls = [Call("get_card", {"card_id": "C-2"}), Call("refund_to_card", {"card_id": "C-1"}, "a1")]
    played = play(case, [*calls, Call("submit", {"outcome": "DONE"})])
    assert resolved_ref(case.requirements[0], played) == "card:C-1"
    assert oracle_problems(case, played) == ["a1:r1"]
    assert evaluate(case, played.trajectory).score == 0
    ref = play(case, reference_calls(case))
    assert resolved_ref(case.requirements[0], ref) == "card:C-2" and oracle_problems(case, ref) == []


def test_a_chosen_argument_is_bound_trimmed_and_a_free_choice_takes_any_value() -> None:
    case = filing_case()
    calls = reference_calls(case)
    padded = [Call(c.tool, {**c.arguments, "officer_id": "  O-2 "}, c.action_id) if c.action_id else c for c in calls]
    padded.insert(1, Call("get_officer", {"officer_id": "O-2"}))
    played = play(case, padded)
    assert resolved_ref(case.requirements[1], played) == "officer:O-2"
    assert oracle_problems(case, played) == [] and evaluate(case, played.trajectory).score == 1
