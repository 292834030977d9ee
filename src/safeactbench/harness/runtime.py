"""Runtime failures — the model's endpoint, not the agent, failed the episode (SPEC §6).

Every harness stores such an episode as `missing` with a reason `CLASS: detail`, where CLASS says
what to fix: `context_overflow` (the conversation no longer fits the model's context window),
`timeout` (which timeout, and its value), `server_unreachable` (connection refused or dropped),
`runtime_error` (anything else: HTTP 5xx after retries, a malformed reply). The report groups
missing episodes by CLASS.

`RunHealth` stops a run whose endpoint is gone: after `limit` episodes in a row ended in a runtime
failure, no new episode starts; the run exits non-zero and `--resume` plays the rest.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable

from ..runs.runner import StopRun

MAX_CONSECUTIVE_FAILURES = 5

_CONTEXT = re.compile(
    r"(?i)context[_ ]length|maximum context|context window|context size|n_ctx|prompt is too long|"
    r"too many (input )?tokens|input length|exceeds? the (model'?s? )?(context|maximum)"
)
_UNREACHABLE = re.compile(
    r"(?i)connection refused|cannot connect|connect call failed|server disconnected|connection reset|"
    r"remote end closed|connection aborted|APIConnectionError|ClientConnectorError|ServerDisconnectedError"
)
_TIMEOUT = re.compile(r"(?i)timed? ?out|timeout")
CLASSES = ("context_overflow", "timeout", "server_unreachable", "runtime_error")
HARNESS_CLASSES = ("harness_fault", "harness_crash")  # the harness, not the endpoint (harness/outcome.py)


def is_context_overflow(text: str) -> bool:
    return bool(_CONTEXT.search(text))


def runtime_reason(problem: str, timeout_hint: str | None = None) -> str:
    """`CLASS: problem` for a runtime failure described by `problem`; `timeout_hint` names the
    timeout that applies (e.g. `the per-call timeout of 600 s, --call-timeout`)."""
    problem = readable(" ".join(problem.split())) or "no detail"
    if problem.split(":", 1)[0] in (*CLASSES, *HARNESS_CLASSES):
        return problem
    if is_context_overflow(problem):
        return f"context_overflow: {problem}"
    if _UNREACHABLE.search(problem):
        return f"server_unreachable: {problem}"
    if _TIMEOUT.search(problem):
        hint = f" ({timeout_hint})" if timeout_hint else ""
        return f"timeout: {problem}{hint}"
    return f"runtime_error: {problem}"


_RETRY_REPR = re.compile(r"RetryError\[<Future at 0x[0-9a-f]+ state=\w+ raised (\w+)>\]")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def readable(problem: str) -> str:
    """A reason without Python reprs or console markup: tenacity's `RetryError[<Future ... raised
    X>]` says which error the retries ended in; object addresses say nothing; a provider's
    `[bold][blue]KEY[/blue][/bold]` (Inspect's missing-key message) is the text `KEY`."""
    problem = _RETRY_REPR.sub(lambda m: f"{m.group(1)} (on every retry)", problem)
    problem = _ADDRESS.sub("", problem)
    if "[/" in problem:
        from rich.errors import MarkupError
        from rich.text import Text

        with contextlib.suppress(MarkupError):  # not markup after all: keep it as written
            problem = Text.from_markup(problem).plain
    return problem


class RuntimeFailure(RuntimeError):
    """An episode's model call failed at runtime; the message is the missing reason. (`message` is
    what Inspect records as a sample's error.)"""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.message = reason


class RunStopped(RuntimeFailure, StopRun):
    """The run stopped starting episodes: too many in a row failed at runtime."""

    MARK = "no new episode was started"


class RunInterrupted(Exception):
    """The user interrupted the run (Ctrl-C) and the harness wound down: what finished is stored."""


class RunHealth:
    """Episodes in a row that failed at runtime, shared by every worker of one run (thread-safe).
    An episode retried after a failure (Inspect's sample retries) counts once. `limit` 0 never stops."""

    def __init__(self, limit: int = MAX_CONSECUTIVE_FAILURES, probe: Callable[[], str | None] | None = None) -> None:
        self.limit = limit
        self.probe = probe  # why nothing answers at the endpoint (a TCP connect), or None when something does
        self.failing: set[object] = set()  # episodes failed since the last one that completed
        self.last: str | None = None
        self.gone: str | None = None  # the endpoint is not there at all: no episode can succeed
        self._lock = threading.Lock()

    def completed(self) -> None:
        with self._lock:
            self.failing.clear()

    def failed(self, episode: object, reason: str) -> None:
        """An episode failed at runtime. When it could not reach the endpoint and nothing listens
        there any more, the run stops at once (unless `limit` is 0): every further episode would
        spend its retries on a server that is gone."""
        gone = self.probe() if self.probe is not None and reason.startswith("server_unreachable") else None
        with self._lock:
            self.failing.add(episode)
            self.last = reason
            self.gone = self.gone or gone

    @property
    def stopped(self) -> bool:
        return bool(self.limit) and (len(self.failing) >= self.limit or self.gone is not None)

    def message(self) -> str:
        if self.gone is not None:
            return (
                f"stopped: the model endpoint is gone ({self.gone}; the last episode: {self.last}); "
                f"{RunStopped.MARK}. Start the model server, then rerun with --resume"
            )
        return (
            f"stopped: the last {len(self.failing)} episodes in a row failed at runtime (the last: {self.last}); "
            f"{RunStopped.MARK}. Fix the model endpoint, then rerun with --resume "
            "(--max-runtime-failures sets the limit)"
        )

    def check(self) -> None:
        """Raise RunStopped when the run must not start another episode."""
        if self.stopped:
            raise RunStopped(self.message())
