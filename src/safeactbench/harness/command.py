"""Run an external CLI agent per episode: `run --harness-cmd '...'`.

For CLIs the family-CLI harness (inspect_swe) does not cover — Qwen Code, or any agent a user
brings. Per episode:

- the episode is served by `safeactbench mcp --http 0`, a host process outside the sandbox (the
  only thing that reads the suite), over streamable HTTP on 127.0.0.1;
- the command runs with `bash -c` in the bubblewrap sandbox (`bwrap_sandbox`, the host's network:
  the CLI talks to its model API and to the MCP server): it sees the system, an empty working
  directory `/work` (the episode's prompt and MCP config in it), its own /tmp and $HOME, and the
  environment variables a model client needs (`*_API_KEY`, `*_BASE_URL`, proxies) — never the
  project, the package, the run directory or other episodes. `--no-sandbox` runs it on the host;
- the work directory is named by a random token, never by the case (the id names the protocol).

Template placeholders (each shell-quoted; anything else in braces that looks like one is an error):
{workdir} {prompt} {prompt_file} {mcp_url} {mcp_config} {base_url} {model} {episode}, and
{case_id} for plumbing tests only — never put it in a model's context.

An episode that ends without `submit` (the CLI exited, crashed, timed out or never connected) is a
harness failure, stored as `missing` with the reason and the log to look at; `--resume` replays it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..evaluator import evaluate
from ..model import Trajectory, first_error
from ..public import public_view
from ..runner import Job, now_iso
from ..store import EpisodeRecord
from .bwrap_sandbox import WORKDIR, WRITABLE, bwrap_argv, kill_sandbox, prepare_root
from .mcp_server import SERVER_NAME, TRAJECTORY_FILE
from .prompts import system_prompt, user_prompt

PLACEHOLDERS = ("workdir", "prompt", "prompt_file", "mcp_url", "mcp_config", "base_url", "model", "episode", "case_id")
PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z_]+)\}")  # `${VAR}` is the shell's, not ours
TERMINAL_ENDS = {"submitted", "decided", "budget_exhausted"}
PASSED_ENV = re.compile(r"^([A-Z0-9_]+_(API_KEY|BASE_URL|API_BASE)|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$")
SERVER_START_S = 30.0


class TemplateError(ValueError):
    """A --harness-cmd template that cannot be rendered; the message names the placeholder."""


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
class CommandHarness:
    """How every episode of a `--harness-cmd` run is played."""

    template: str
    run_dir: Path
    label: str
    timeout: float
    sandbox: bool = True
    model: str | None = None
    base_url: str | None = None  # {base_url}; a serve-agent URL becomes a per-episode URL (POST /ep)
    binds: tuple[str, ...] = ()  # extra host paths the sandbox shows read-only (a CLI installed elsewhere)

    def play(self, job: Job) -> EpisodeRecord:
        token = secrets.token_hex(8)
        root = prepare_root(self.run_dir / "work" / token)  # what the agent sees is root/work
        server, mcp_url = _start_server(job, root)
        started, clock = now_iso(), time.perf_counter()
        try:
            code, problem = self._run_agent(job, root, token, mcp_url)
        finally:
            _stop(server)
        base = EpisodeRecord.for_case(
            job.case,
            agent=self.label,
            harness="command",
            model=self.model,
            repetition=job.repetition,
            seed=job.seed,
            started_at=started,
            duration_s=time.perf_counter() - clock,
        )
        return _judge(job, base, root, code, problem)

    def _run_agent(self, job: Job, root: Path, token: str, mcp_url: str) -> tuple[int | None, str]:
        view = public_view(job.case)
        work = root / WRITABLE[WORKDIR]
        inside = WORKDIR if self.sandbox else str(work.resolve())
        prompt = system_prompt(view) + "\n\n" + user_prompt(view)
        (work / "prompt.txt").write_text(prompt, encoding="utf-8")
        config = {"mcpServers": {SERVER_NAME: {"type": "http", "url": mcp_url, "httpUrl": mcp_url}}}
        (work / "mcp.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
        values = {
            "workdir": inside,
            "prompt": prompt,
            "prompt_file": f"{inside}/prompt.txt",
            "mcp_url": mcp_url,
            "mcp_config": f"{inside}/mcp.json",
            "base_url": self._episode_base_url(job),
            "model": self.model or "",
            "episode": token,
            "case_id": job.case.id,
        }
        shell = ["bash", "-c", render_command(self.template, values)]
        env = {k: v for k, v in os.environ.items() if PASSED_ENV.match(k)}
        if self.sandbox:
            argv = bwrap_argv(shell, root=root, cwd=WORKDIR, env=env, sandbox_id=token, binds=self.binds, own_pids=True)
            return _run(argv, cwd=root, log=root / "harness.log", timeout=self.timeout, env=None, sandbox_id=token)
        home = root / WRITABLE["/home/agent"]
        return _run(
            shell, cwd=work, log=root / "harness.log", timeout=self.timeout, env={**os.environ, "HOME": str(home)}
        )

    def _episode_base_url(self, job: Job) -> str:
        """{base_url}: the given URL, or the episode's own URL when it is a `serve-agent`."""
        if self.base_url is None:
            return ""
        origin = re.sub(r"/v1/?$", "", self.base_url.rstrip("/"))
        body = json.dumps({"case": job.case.id, "condition": job.condition, "repetition": job.repetition})
        request = urllib.request.Request(f"{origin}/ep", data=body.encode(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return str(json.loads(response.read())["base_url"])
        except (urllib.error.URLError, OSError, ValueError, KeyError):
            return self.base_url  # not a serve-agent: every episode talks to the same endpoint


def _start_server(job: Job, root: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`safeactbench mcp --http 0` for the episode, outside the sandbox; returns it and its URL.

    The wait for the URL line is bounded by `SERVER_START_S` even when the server hangs silently:
    the pipe is polled with `select` and read raw, so no read ever blocks past the deadline."""
    server = subprocess.Popen(
        [sys.executable, "-m", "safeactbench", "mcp", "--case", job.case.id, "--condition", job.condition,
         "--out", str(root), "--http", "0"],
        stdout=subprocess.PIPE,
        stderr=(root / "mcp-server.log").open("w", encoding="utf-8"),
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    assert server.stdout is not None
    fd = server.stdout.fileno()
    deadline = time.monotonic() + SERVER_START_S
    seen = b""
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        chunk = os.read(fd, 4096) if ready else b""
        if not chunk:  # timed out, or the server closed its output (it exited)
            break
        seen += chunk
        for line in seen.decode("utf-8", "replace").split("\n")[:-1]:  # complete lines only
            if "http://" in line:
                return server, line.rsplit(" ", 1)[1].strip()
    _stop(server)
    last = seen.decode("utf-8", "replace").strip().splitlines()[-1:] or ["see mcp-server.log"]
    raise RuntimeError(f"the episode's MCP server did not start within {SERVER_START_S} s: {last[0]}")


def _stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the server writes the trajectory on its way out), then SIGKILL if need be."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _run(
    argv: list[str], *, cwd: Path, log: Path, timeout: float, env: dict[str, str] | None, sandbox_id: str | None = None
) -> tuple[int | None, str]:
    """Exit code (None on timeout) of the agent; its whole process group (and sandbox) is killed
    on timeout."""
    with log.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(
            argv, cwd=cwd, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )  # fmt: skip
        try:
            return process.wait(timeout=timeout), ""
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return None, f"timeout: killed after {timeout:.0f}s"
        finally:
            if sandbox_id is not None:
                kill_sandbox(sandbox_id)


def _judge(job: Job, base: EpisodeRecord, root: Path, code: int | None, problem: str) -> EpisodeRecord:
    """The episode's record: scored when it ended (submitted, decided or out of budget), else
    missing with a reason that says what happened and where the log is."""
    where = f"see {root / 'harness.log'}"
    try:
        trajectory = Trajectory.model_validate_json((root / TRAJECTORY_FILE).read_bytes())
    except (OSError, ValueError) as exc:  # ValidationError included
        detail = first_error(exc, "trajectory") if isinstance(exc, ValidationError) else str(exc)
        return _missing(base, f"harness_error: {TRAJECTORY_FILE} cannot be read ({detail}); {where}")
    if trajectory.end_reason in TERMINAL_ENDS:
        return base.model_copy(update={"trajectory": trajectory, "verdict": evaluate(job.case, trajectory)})
    calls = len(trajectory.steps)
    if problem:
        reason = f"{problem}; {calls} call(s) had reached the episode; {where}"
    elif calls == 0:
        reason = f"harness_crash: exit {code}; the agent never called a tool (did it connect?); {where}"
    else:
        reason = f"harness_incomplete: exit {code} after {calls} call(s), without submitting; {where}"
    return _missing(base.model_copy(update={"trajectory": trajectory}), reason)


def _missing(record: EpisodeRecord, reason: str) -> EpisodeRecord:
    return record.model_copy(update={"status": "missing", "missing_reason": reason})


__all__ = ["CommandHarness", "TemplateError", "check_template", "render_command"]
