"""Run an external CLI agent per episode against the MCP server: `run --harness-cmd '...'`.

The command template may use {mcp_config} (path of an MCP client config naming our server),
{prompt} (the agent prompt, shell-quoted), {prompt_file}, {workdir} and {case_id} (for plumbing
tests; never put it in a model's prompt: it names the protocol). The agent's own output goes to
`harness.log` in the episode's work directory; the environment (API keys included) is passed to
the command but never written anywhere.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from pydantic import ValidationError

from ..evaluator import evaluate
from ..model import Trajectory, first_error
from ..public import public_view
from ..runner import Job, now_iso
from ..store import EpisodeRecord
from .mcp_server import TRAJECTORY_FILE
from .prompts import system_prompt, user_prompt

PLACEHOLDER = re.compile(r"\{(mcp_config|prompt|prompt_file|workdir|case_id)\}")
TERMINAL_ENDS = {"submitted", "decided", "budget_exhausted"}


def work_dir(run_dir: Path, job: Job) -> Path:
    return run_dir / "work" / f"{job.case.id}.{job.condition}.{job.repetition}"


def render_command(template: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: shlex.quote(values[m.group(1)]), template)


def _run(command: str, cwd: Path, timeout: float) -> tuple[int | None, str]:
    """Exit code (None on timeout) of a shell command whose whole process group is killed on timeout."""
    with (cwd / "harness.log").open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command,
            shell=True,
            cwd=cwd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return process.wait(timeout=timeout), ""
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return None, f"timeout: killed after {timeout:.0f}s"


def play_command(job: Job, template: str, run_dir: Path, timeout: float, label: str) -> EpisodeRecord:
    work = work_dir(run_dir, job)
    work.mkdir(parents=True, exist_ok=True)
    (work / TRAJECTORY_FILE).unlink(missing_ok=True)
    view = public_view(job.case)
    prompt = system_prompt(view) + "\n\n" + user_prompt(view)
    config = {
        "mcpServers": {
            "safeactbench": {
                "command": sys.executable,
                "args": [
                    "-m",
                    "safeactbench",
                    "mcp",
                    "--case",
                    job.case.id,
                    "--condition",
                    job.condition,
                    "--out",
                    str(work.resolve()),
                ],
            }
        }
    }
    (work / "mcp.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    (work / "prompt.txt").write_text(prompt, encoding="utf-8")
    command = render_command(
        template,
        {
            "mcp_config": str((work / "mcp.json").resolve()),
            "prompt": prompt,
            "prompt_file": str((work / "prompt.txt").resolve()),
            "workdir": str(work.resolve()),
            "case_id": job.case.id,
        },
    )
    started, clock = now_iso(), time.perf_counter()
    code, problem = _run(command, work, timeout)
    base = EpisodeRecord.for_case(
        job.case,
        agent=label,
        harness="command",
        repetition=job.repetition,
        seed=job.seed,
        started_at=started,
        duration_s=time.perf_counter() - clock,
    )
    path = work / TRAJECTORY_FILE
    if not path.exists():
        reason = f"{problem or f'harness_crash: exit {code}'}; the agent never connected"
        return base.model_copy(update={"status": "missing", "missing_reason": reason})
    try:
        trajectory = Trajectory.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:  # ValidationError included
        detail = first_error(exc, "trajectory") if isinstance(exc, ValidationError) else str(exc)
        reason = f"harness_error: {TRAJECTORY_FILE} cannot be read ({detail})"
        return base.model_copy(update={"status": "missing", "missing_reason": reason[:500]})
    if problem or (code != 0 and trajectory.end_reason not in TERMINAL_ENDS):
        reason = problem or f"harness_crash: exit {code}"
        return base.model_copy(update={"status": "missing", "missing_reason": reason, "trajectory": trajectory})
    return base.model_copy(update={"trajectory": trajectory, "verdict": evaluate(job.case, trajectory)})
