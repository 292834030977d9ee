"""The evaluator audit (issue 7): mutants of every reference trajectory, scored by the real evaluator.

From each case's reference solution the audit derives

- **invalidating mutants** (must fail): a required read dropped, replaced by a read of a near-miss
  entity or made through a tool the requirement does not accept, moved after the action it
  supports or so early that a later action makes it stale; two dependent actions swapped; each
  argument of each action changed; a result reference replaced by a fabricated id or by another
  action's result; an extra consequential call; a wrong V0 stop outcome, any action in V0, no
  submission; stopping a workflow early; a wrong Legacy decision;
- **valid variants** (must pass): every other topological order of a V3 DAG (each action's reads
  kept before it), extra irrelevant reads, repeated reads, reads in another order, reads hoisted
  where they stay fresh, equivalent numeric formats (119 / 119.0 / 1.19e2), arguments as JSON text
  in another key order, a harmless optional argument, any submitted outcome after a complete
  workflow, a corrected Legacy decision.

Mutants are *call scripts* played through a real `Episode`, so every observation is genuine; the
trajectory is then scored with `evaluate`. Labels are right by construction. Where a label depends
on evidence (a dropped read may be re-established by another one, a hoisted read may go stale),
it is decided by the **label oracle** (`oracle`): an independent re-statement of SPEC §4 that reads the
played observations and the world's record versions - it shares no code with the ledger or the
evaluator, so a disagreement between the two is reported, never hidden. Mutants whose label was
fixed by construction are also checked against the oracle (`inconsistencies`, must be empty).

`run_audit(cases)` returns an `AuditReport`: false acceptances (a must-fail mutant scored 1) and
false rejections (a must-pass variant scored 0) per operator and per protocol.

Modules: `calls` (call scripts and `play`), `oracle` (the label oracle), `context` (what operators
work from), `read_operators` / `action_operators` / `protocol_operators` (the mutation operators),
`operators` (their registry and `mutants()`), `report` (tallies, JSON and Markdown), `run`
(`run_audit`, `sample_cases`, the `safeactbench audit` command).

May import `suite` and `core`; never runs, harnesses, the analysis, the importers or the command line.
"""

from __future__ import annotations

from .calls import Call, Mutant, Played, play, reference_calls
from .operators import OPERATORS, mutants
from .oracle import establishers, evidence_map, oracle_missing
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
    "play",
    "reference_calls",
    "run_audit",
    "sample_cases",
]
