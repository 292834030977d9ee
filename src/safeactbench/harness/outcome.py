"""Whether an episode is scored or missing: one rule for every harness (SPEC §6).

An episode is **scored** when the agent ended it: it submitted (or decided, or ran out of budget),
or it stopped by itself without submitting (`agent_stopped`, scored on what it did: a give-up is
the agent's outcome). It is **missing** only when something the agent did not cause ended it:

The first row that applies decides:

| what happened                                                | stored                                   |
|--------------------------------------------------------------|------------------------------------------|
| a call the model made never reached the episode              | missing, `harness_fault`                 |
| the agent submitted, decided, or ran out of budget           | scored                                   |
| the model endpoint refused or dropped the connection         | missing, `server_unreachable`            |
| a model call or the episode timed out                        | missing, `timeout`                       |
| other model-endpoint errors after the retries                | missing, `runtime_error`                 |
| the CLI never reached the episode's tools                    | missing, `harness_crash`                 |
| the CLI exited with an error                                 | missing, `harness_crash` (its last line) |
| the agent stopped by itself (its loop or CLI ended normally) | scored, `agent_stopped`                  |

An unknown tool or invalid arguments that reach the episode are the agent's calls: answered with a
structured error, recorded, scored. Each harness reports what it saw as an `EpisodeEnd`;
`missing_reason` applies the rule.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EpisodeEnd:
    """How an episode ended, as its harness saw it."""

    finished: bool  # the trajectory ended the episode: submitted, decided, out of budget
    connected: bool = True  # the agent reached the episode's tools (listed or called them)
    exit_code: int | None = 0  # the agent's process (0: ended normally; None: it was stopped)
    lost_calls: int = 0  # tool calls the model made that never reached the episode
    runtime: str = ""  # a runtime failure, `CLASS: detail` (harness/runtime.py)
    said: str = ""  # the CLI's own last error line, for the reason
    calls: int = 0  # calls that reached the episode


def missing_reason(end: EpisodeEnd) -> str | None:
    """None when the episode is scored; else why it is missing (`CLASS: detail`)."""
    said = f"; the CLI said: {end.said}" if end.said else ""
    reached = f"; {end.calls} call(s) had reached the episode"
    if end.lost_calls:
        return (
            f"harness_fault: {end.lost_calls} tool call(s) the model made never reached the episode "
            f"(refused or renamed by the CLI, or lost){reached}{said}"
        )
    if end.finished:
        return None
    if end.runtime:
        return f"{end.runtime}{reached}{said}"
    if not end.connected:
        return f"harness_crash: exit {end.exit_code}; the agent never reached its tools{said}"
    if end.exit_code != 0:
        return f"harness_crash: exit {end.exit_code}{reached}{said}"
    return None
