"""The evaluator audit (issue 7): mutants of every reference trajectory, scored by the real evaluator.

From each case's reference solution the audit derives

- **invalidating mutants** (must fail): a required read dropped, replaced by a read of a near-miss
  entity or made through a tool the requirement does not accept, moved after the action it
  supports or so early that a later action makes it stale; two dependent actions swapped; each
  scalar argument of each action changed; a value inside an object or array argument changed, an
  unordered set with an element dropped, added or changed; an argument the agent chooses (`Choice`)
  sent blank or outside its listed values, or moved to another record nobody read while evidence is
  bound to it (`ArgRef`); a result reference replaced by a fabricated id or by another action's
  result; an extra consequential call; a wrong V0 stop outcome, any action in V0, no submission;
  stopping a workflow early; a wrong Legacy decision;
- **valid variants** (must pass): every other topological order of a V3 DAG (each action's reads
  kept before it), extra irrelevant reads, repeated reads, reads in another order, reads hoisted
  where they stay fresh, equivalent numeric formats (119 / 119.0 / 1.19e2) at every depth, strings
  padded with whitespace at every depth, arguments as JSON text in another key order, a harmless
  optional argument, an unordered set in another order, another value a `Choice` allows with the
  evidence bound to it read, any submitted outcome after a complete workflow, a corrected Legacy
  decision.

Mutants are *call scripts* played through a real `Episode`, so every observation is genuine; the
trajectory is then scored with `evaluate`. Where a label depends on evidence (a dropped read may be
re-established by another one, a hoisted read may go stale, another chosen record may satisfy the
evidence bound to it) it is decided by the **label oracle** (`oracle_judge`, `oracle`,
`oracle_values`): SPEC §3-§4 re-stated from the played trajectory alone, with its own value
comparison and its own replay of record versions; it imports nothing of the evaluator, the ledger,
the world or `core.values` (tests/test_audit_oracle.py holds it), so a disagreement between the two
is reported, never hidden. Every label an operator fixes by construction is checked against the
oracle too (`inconsistencies`, must be empty).

`run_audit(cases)` returns an `AuditReport`: false acceptances (a must-fail mutant scored 1) and
false rejections (a must-pass variant scored 0) per operator and per protocol.

Modules: `calls` (call scripts and `play`), `played` (a played mutant as data), `oracle_values` /
`oracle` / `oracle_judge` (the label oracle: values, evidence, the verdict), `context` (what operators
work from), `read_operators` / `action_operators` / `value_operators` / `choice_operators` /
`protocol_operators` (the mutation operators), `operators` (their registry and `mutants()`),
`report` (tallies, JSON and Markdown), `run` (`run_audit`, `sample_cases`, the `safeactbench audit`
command).

May import `suite` and `core`; never runs, harnesses, the analysis, the importers or the command line.
"""

from __future__ import annotations

from .calls import Call, Mutant, Played, play, reference_calls
from .operators import OPERATORS, mutants
from .oracle import establishers, evidence_map, oracle_missing
from .oracle_judge import oracle_problems
from .report import PROTOCOL_ORDER, AuditReport, Tally
from .run import audit_command, run_audit, sample_cases

__all__ = [
    "OPERATORS",
    "PROTOCOL_ORDER",
    "AuditReport",
    "Call",
    "Mutant",
    "Played",
    "Tally",
    "audit_command",
    "establishers",
    "evidence_map",
    "mutants",
    "oracle_missing",
    "oracle_problems",
    "play",
    "reference_calls",
    "run_audit",
    "sample_cases",
]
