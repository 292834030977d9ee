"""Run an external CLI agent per episode: `run --harness-cmd '...'`, and the family CLIs.

A CLI talking to a model endpoint the user gives (`--base-url`), or any agent a user brings; the
family-CLI harnesses (`family_cli`) are these episodes with the sample's Inspect model as the
endpoint (`model_route`). Per episode:

- the command runs with `bash -c` in a bubblewrap sandbox of its own (`bwrap_sandbox`): its own
  mount, pid and loopback-only network namespaces. It sees the system, its CLI (wherever the user
  installed it: `cli_install`), an empty working directory `/work` (the episode's prompt and MCP
  config in it), its own /tmp and $HOME, and the environment variables a model client needs
  (`*_API_KEY`, `*_BASE_URL`) — never the project, the package, the run directory, other episodes
  or any other listener of this machine. `--no-sandbox` runs it on the host;
- in its network there are exactly two listeners (`episode_net`), both served from this process
  (`gateway`): the episode's MCP server, at a path holding a per-episode secret, and the model
  endpoint `--base-url`, relayed to the real one under its own name and port;
- the work directory is named by a random token, never by the case (the id names the protocol).

Template placeholders (each shell-quoted; anything else in braces that looks like one is an error):
{workdir} {prompt} {prompt_file} {mcp_url} {mcp_config} {base_url} {api_root} ({base_url} without
its `/v1`, for clients that add it) {model} {episode}, and {case_id} for plumbing tests only —
never put it in a model's context.

How the episode is stored is the one rule of `outcome`: a CLI that exits 0 without submitting
stopped by itself (scored, `agent_stopped`); a CLI that crashed, never reached its tools, timed out
or lost its model endpoint is missing, with the reason, the CLI's last line and the log to look at.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TextIO

from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.prompts import system_prompt, user_prompt
from ..core.public import public_view
from ..core.trajectory import Trajectory
from ..runs.runner import Job, StopRun, now_iso
from ..runs.store import EpisodeRecord
from .bwrap_sandbox import WORKDIR, WRITABLE, BwrapConfig, BwrapSandbox, prepare_root
from .episode_net import Upstream, is_local, listen_in, unreachable, upstream_of
from .gateway import EpisodeLink, Gateway
from .mcp_server import SERVER_NAME, write_trajectory
from .outcome import EpisodeEnd, missing_reason
from .runtime import MAX_CONSECUTIVE_FAILURES, RunHealth

PLACEHOLDERS = ("workdir", "prompt", "prompt_file", "mcp_url", "mcp_config", "base_url", "api_root", "model", "episode",
                "case_id")  # fmt: skip
PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z_]+)\}")  # `${VAR}` is the shell's, not ours
TERMINAL_ENDS = {"submitted", "decided", "budget_exhausted"}
PASSED_ENV = re.compile(r"^[A-Z0-9_]+_(API_KEY|BASE_URL|API_BASE)$")
PROXY_ENV = re.compile(r"^((HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$")  # the host's: only without a sandbox
REFUSALS_TO_STOP = 3  # model connections refused in a row before the episode is stopped as unreachable
WAIT_STEP_S = 0.1  # how often a running agent is checked for an unreachable endpoint
LOG = "harness.log"


class TemplateError(ValueError):
    """A --harness-cmd template that cannot be rendered; the message names the placeholder."""


class EpisodeInterrupted(StopRun):
    """The run was interrupted while the episode ran: it is not stored (`--resume` plays it)."""


def check_template(template: str) -> None:
    unknown = sorted({m.group(1) for m in PLACEHOLDER.finditer(template)} - set(PLACEHOLDERS))
    if unknown:
        raise TemplateError(
            f"--harness-cmd: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
            f"available: {', '.join('{' + p + '}' for p in PLACEHOLDERS)} (write ${{VAR}} for shell variables)"
        )


def render_command(template: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: shlex.quote(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


@dataclass(frozen=True)
class Settings:
    """What every episode of a `--harness-cmd` run shares."""

    template: str
    run_dir: Path
    label: str
    timeout: float
    sandbox: bool = True
    model: str | None = None
    base_url: str | None = None  # {base_url}; a local serve-agent URL becomes a per-episode URL (POST /ep)
    binds: tuple[str, ...] = ()  # host paths the sandbox shows read-only (the CLI's install, --sandbox-bind)
    path: tuple[str, ...] = ()  # directories put first on the sandbox's PATH (where the CLI is)
    max_failures: int = MAX_CONSECUTIVE_FAILURES
    pass_keys: bool = True  # the host's `*_API_KEY`/`*_BASE_URL` reach the CLI (not when its model is ours)


@dataclass(frozen=True)
class EpisodeRun:
    """One episode as the command played it, before it is stored (`outcome` decides how)."""

    trajectory: Trajectory
    end: EpisodeEnd
    root: Path  # the episode's files: root/work is the agent's, the log is root/harness.log
    started: str
    duration_s: float


@dataclass
class Ended:
    """What the agent's process did."""

    exit_code: int | None  # None: it was stopped
    runtime: str = ""  # why it was stopped (a runtime failure, `CLASS: detail`)


class CommandHarness:
    """Plays episodes of a `--harness-cmd` run, any number at once (`play` is thread-safe)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        if settings.base_url and settings.sandbox:
            upstream_of(settings.base_url)  # a URL the sandbox cannot reach fails here, before any episode
        url = settings.base_url
        self.health = RunHealth(
            settings.max_failures, probe=None if url is None else lambda: unreachable(url, seconds=2)
        )
        self.gateway = Gateway()
        self._interrupted = threading.Event()
        self._live: set[str] = set()  # sandbox ids of running episodes
        self._killed: set[str] = set()  # episodes stopped by `kill`
        self._stops: dict[str, str] = {}  # episodes to stop, with why (`stop`)
        self._lock = threading.Lock()

    def interrupt(self) -> None:
        """Stop every running episode now (Ctrl-C, SIGTERM); none of them is stored."""
        from .bwrap_sandbox import kill_sandbox

        self._interrupted.set()
        with self._lock:
            live = list(self._live)
        for sandbox_id in live:
            kill_sandbox(sandbox_id)

    def kill(self, token: str) -> None:
        """Stop one running episode now (its sample was cancelled); it is not stored."""
        from .bwrap_sandbox import kill_sandbox

        with self._lock:
            self._killed.add(token)
        kill_sandbox(token)

    def stop(self, token: str, runtime: str) -> None:
        """Stop one running episode as a runtime failure (`CLASS: detail`): it will be missing."""
        with self._lock:
            self._stops.setdefault(token, runtime)

    def play(self, job: Job) -> EpisodeRecord:
        self.health.check()  # RunStopped: no new episode after too many failures in a row
        run = self.run_episode(job, secrets.token_hex(8), self._episode_base_url(job), self.settings.model or "")
        record = EpisodeRecord.for_case(
            job.case, agent=self.settings.label, harness="command", model=self.settings.model,
            repetition=job.repetition, seed=job.seed, started_at=run.started, duration_s=run.duration_s,
            trajectory=run.trajectory,
        )  # fmt: skip
        reason = missing_reason(run.end)
        if reason is None:
            self.health.completed()
            return record.model_copy(update={"verdict": evaluate(job.case, run.trajectory)})
        reason = f"{reason}; see {run.root / LOG}"
        self.health.failed(job.key, reason)
        return record.model_copy(update={"status": "missing", "missing_reason": reason})

    def run_episode(self, job: Job, token: str, base_url: str, model: str) -> EpisodeRun:
        """Play `job` with the command, its model at `base_url`, named `model` ({model}); `token` names
        its work directory and sandbox (`kill(token)` stops it)."""
        root = prepare_root(self.settings.run_dir / "work" / token)  # what the agent sees is root/work
        started, clock = now_iso(), time.perf_counter()
        episode = Episode(job.case)
        upstream = upstream_of(base_url) if base_url and self.settings.sandbox else None
        with self._place(token, root, upstream) as (tool_socket, relays, spawn):
            link = self.gateway.open(episode, root, secrets.token_urlsafe(18), tool_socket, relays)
            try:
                ended = self._run_agent(job, root, token, link, spawn, base_url, model)
            finally:
                self.gateway.close(link)
        if self._interrupted.is_set() or token in self._killed:
            raise EpisodeInterrupted("the run was interrupted")
        episode.stop()
        write_trajectory(episode, root)
        trajectory = episode.trajectory()
        end = EpisodeEnd(
            finished=trajectory.end_reason in TERMINAL_ENDS,
            connected=link.listed or bool(trajectory.steps),
            exit_code=ended.exit_code,
            runtime=ended.runtime,
            said=last_line(root / LOG) if ended.exit_code != 0 else "",
            calls=len(trajectory.steps),
        )
        return EpisodeRun(trajectory, end, root, started, time.perf_counter() - clock)

    # -- the episode's place: a sandbox with its own network, or the host --------------------------
    @contextlib.contextmanager
    def _place(
        self, token: str, root: Path, upstream: Upstream | None
    ) -> Iterator[tuple[socket.socket, list[tuple[socket.socket, Upstream]], Spawner]]:
        """The tool server's listening socket, the model relays' and the spawner, in the episode's
        network (the relay's fixed port is bound before the tool server's free one)."""
        if not self.settings.sandbox:
            yield listen_on_host(), [], HostSpawner(root)
            return
        hosts = () if upstream is None or upstream.mapped_name is None else ((upstream.mapped_name, upstream.inside),)
        config = BwrapConfig(binds=self.settings.binds, path=self.settings.path, hosts=hosts)
        sandbox = BwrapSandbox(config, root=root, sandbox_id=token)
        with self._lock:
            self._live.add(token)
        try:
            sandbox.start_keeper()
            assert sandbox.namespaces is not None
            wanted = [] if upstream is None else [(upstream.inside, upstream.port)]
            *relayed, tool_socket = listen_in(sandbox.namespaces, [*wanted, ("127.0.0.1", 0)])
            yield (
                tool_socket,
                [(listener, upstream) for listener in relayed if upstream is not None],
                SandboxSpawner(sandbox, self.settings.pass_keys),
            )
        finally:
            sandbox.destroy()
            with self._lock:
                self._live.discard(token)

    # -- the agent --------------------------------------------------------------------------------
    def _run_agent(
        self, job: Job, root: Path, token: str, link: EpisodeLink, spawn: Spawner, base_url: str, model: str
    ) -> Ended:
        settings = self.settings
        view = public_view(job.case)
        work = root / WRITABLE[WORKDIR]
        inside = WORKDIR if settings.sandbox else str(work.resolve())
        prompt = system_prompt(view) + "\n\n" + user_prompt(view)
        (work / "prompt.txt").write_text(prompt, encoding="utf-8")
        mcp_url = f"http://127.0.0.1:{link.tool_port}{link.tool_path}"
        config = {"mcpServers": {SERVER_NAME: {"type": "http", "url": mcp_url, "httpUrl": mcp_url}}}
        (work / "mcp.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
        values = {
            "workdir": inside,
            "prompt": prompt,
            "prompt_file": f"{inside}/prompt.txt",
            "mcp_url": mcp_url,
            "mcp_config": f"{inside}/mcp.json",
            "base_url": base_url,
            "api_root": re.sub(r"/v1/?$", "", base_url),
            "model": model,
            "episode": token,
            "case_id": job.case.id,
        }
        shell = ["bash", "-c", render_command(settings.template, values)]
        with (root / LOG).open("w", encoding="utf-8") as log:
            process = spawn(shell, log)
            return self._wait(process, link, spawn, token)

    def _wait(self, process: subprocess.Popen[bytes], link: EpisodeLink, spawn: Spawner, token: str) -> Ended:
        """The agent's exit, or why it was stopped: the timeout, an endpoint refusing it, a `stop`,
        the run's interruption. Every process it started is killed either way."""
        deadline = time.monotonic() + self.settings.timeout
        try:
            while True:
                try:
                    return Ended(process.wait(timeout=WAIT_STEP_S))
                except subprocess.TimeoutExpired:
                    pass
                if self._interrupted.is_set():
                    return Ended(None, "interrupted")
                if token in self._stops:
                    return Ended(None, self._stops[token])
                if link.refused >= REFUSALS_TO_STOP:
                    return Ended(None, f"server_unreachable: the model endpoint refused {link.refused} connections "
                                       f"in a row ({link.last_refusal})")  # fmt: skip
                if time.monotonic() > deadline:
                    return Ended(None, f"timeout: killed after {self.settings.timeout:.0f} s (--timeout)")
        finally:
            spawn.kill(process)

    def _episode_base_url(self, job: Job) -> str:
        """{base_url}: the given URL, or the episode's own URL when it is a local `serve-agent`
        (only a server on this machine is told which episode is calling)."""
        base_url = self.settings.base_url
        if base_url is None:
            return ""
        if not is_local(base_url):
            return base_url
        origin = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
        body = json.dumps({"case": job.case.id, "condition": job.condition, "repetition": job.repetition})
        request = urllib.request.Request(f"{origin}/ep", data=body.encode(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return str(json.loads(response.read())["base_url"])
        except (urllib.error.URLError, OSError, ValueError, KeyError):
            return base_url  # not a serve-agent: every episode talks to the same endpoint


class Spawner(Protocol):
    """Starts the agent's command in its place, and kills all it started."""

    def __call__(self, shell: list[str], log: TextIO) -> subprocess.Popen[bytes]: ...

    def kill(self, process: subprocess.Popen[bytes]) -> None: ...


class SandboxSpawner:
    def __init__(self, sandbox: BwrapSandbox, pass_keys: bool = True) -> None:
        self.sandbox = sandbox
        self.pass_keys = pass_keys

    def __call__(self, shell: list[str], log: TextIO) -> subprocess.Popen[bytes]:
        env = {k: v for k, v in os.environ.items() if self.pass_keys and PASSED_ENV.match(k)}
        argv = self.sandbox.command(shell, WORKDIR, env)
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)  # fmt: skip

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        self.sandbox.destroy()  # every process in the sandbox's pid namespace dies with it
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


class HostSpawner:
    """`--no-sandbox`: the command on the host, in its work directory, with its own $HOME."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(self, shell: list[str], log: TextIO) -> subprocess.Popen[bytes]:
        env = {k: v for k, v in os.environ.items() if k != "HOME"} | {"HOME": str(self.root / WRITABLE["/home/agent"])}
        return subprocess.Popen(shell, cwd=self.root / WRITABLE[WORKDIR], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)  # fmt: skip

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def listen_on_host() -> socket.socket:
    """`--no-sandbox`: the tool server on the host's loopback (the secret path still guards it)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    return listener


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def last_line(log: Path, limit: int = 300) -> str:
    """The last non-empty line the CLI wrote (its own error, usually), without colour codes."""
    try:
        text = log.read_bytes()[-8192:].decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [ANSI.sub("", line).strip() for line in text.splitlines()]
    return next((line[:limit] for line in reversed(lines) if line), "")


__all__ = ["CommandHarness", "EpisodeInterrupted", "Settings", "TemplateError", "check_template", "render_command"]
