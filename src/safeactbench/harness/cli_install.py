"""The user's CLI agent, wherever it is installed, inside the sandbox.

The sandbox shows the system read-only (/usr, /opt, ...). A CLI installed elsewhere — an nvm
prefix, ~/.local, a directory under /tmp — is found on the host's PATH, and its install prefix
(and its interpreter's, for a `#!/usr/bin/env node` script) is bound read-only into the sandbox and
put first on its PATH. `check_inside` then runs `CLI --version` in a sandbox like an episode's, so
a CLI that works on the host but not inside fails before the run, with what to do, and the version
recorded is the one the episodes run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from .bwrap_sandbox import BASE_ENV, SYSTEM_ROOTS, WORKDIR, bwrap_argv, hidden_paths, prepare_root

SANDBOX_PATH = BASE_ENV["PATH"].split(":")

# the oldest version each CLI was tested at (docs/harnesses.md); older Qwen Code never offers MCP
# tools to the model and loops until the timeout
VERSION_FLOORS: dict[str, tuple[int, ...]] = {
    "codex": (0, 169, 0),
    "qwen": (0, 24, 4),
    "claude": (2, 1, 328),
    "gemini": (0, 61, 0),
    "opencode": (1, 18, 33),
}
INSTALL = {"codex": "@openai/codex", "qwen": "@qwen-code/qwen-code", "claude": "@anthropic-ai/claude-code",
           "gemini": "@google/gemini-cli", "opencode": "opencode-ai"}  # fmt: skip


class CLIUnusable(RuntimeError):
    """The CLI cannot run in the sandbox (the message says what to install or pass)."""


@dataclass(frozen=True)
class CLIMounts:
    """Host paths to show the sandbox, and the directories to put first on its PATH."""

    binds: tuple[str, ...] = ()
    path: tuple[str, ...] = ()


def _shown(path: Path) -> bool:
    return any(path.is_relative_to(root) for root in SYSTEM_ROOTS)


def _prefix(executable: Path) -> Path:
    """The install prefix of an executable: `PREFIX/bin/x` -> PREFIX, else its directory. Never a
    home directory or anything holding a hidden path (the package, the venv, the project)."""
    prefix = executable.parent.parent if executable.parent.name == "bin" else executable.parent
    guarded = [Path.home().resolve(), *(Path(p) for p in hidden_paths())]
    if any(g.is_relative_to(prefix) for g in guarded):
        prefix = executable.parent
    if any(g.is_relative_to(prefix) for g in guarded):
        raise CLIUnusable(f"{executable}: its directory holds your home or the project; install the CLI elsewhere")
    return prefix


def _interpreter(script: Path) -> str | None:
    """What a `#!` line runs (`#!/usr/bin/env node` -> node)."""
    try:
        first = script.read_bytes()[:256].split(b"\n", 1)[0].decode("utf-8", "replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return rest[0] if rest else None
    return words[0]


def not_installed(executable: str) -> str:
    package = INSTALL.get(executable)
    hint = f"install it with `npm install -g {package}`" if package else "install it or fix PATH"
    return f"`{executable}` is not installed on this machine's PATH; {hint}"


def cli_mounts(executable: str) -> CLIMounts:
    """What the sandbox needs to run `executable` as the host does."""
    found = shutil.which(executable)
    if found is None:
        raise CLIUnusable(not_installed(executable))
    binds: dict[str, None] = {}
    path: dict[str, None] = {}
    programs = [Path(found)]
    interpreter = _interpreter(Path(found).resolve())
    if interpreter is not None:
        located = shutil.which(interpreter)
        if located is not None:
            programs.append(Path(located))
    for program in programs:
        for candidate in (program, program.resolve()):
            if not _shown(candidate):
                binds[str(_prefix(candidate))] = None
        if str(program.parent) not in SANDBOX_PATH:  # e.g. /opt/x/bin: shown, but not on the sandbox's PATH
            path[str(program.parent)] = None
    return CLIMounts(tuple(binds), tuple(path))


def parse_version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(g) for g in match.groups()) if match else None


def check_inside(executable: str, mounts: CLIMounts, extra_binds: tuple[str, ...] = ()) -> str:
    """`EXECUTABLE --version` inside a sandbox like an episode's: its first line, or CLIUnusable
    saying why it does not run there or is older than its floor."""
    root = prepare_root(Path(tempfile.mkdtemp(prefix="sab-preflight-")))
    env = {"PATH": ":".join((*mounts.path, *SANDBOX_PATH))}
    argv = bwrap_argv(
        [executable, "--version"], root=root, cwd=WORKDIR, env=env, sandbox_id=uuid.uuid4().hex,
        binds=(*mounts.binds, *extra_binds), own_pids=True,
    )  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise CLIUnusable(f"`{executable} --version` did not answer within 60 s inside the sandbox") from None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    said = (done.stdout or done.stderr).strip()
    if done.returncode != 0 or not said:
        last = said.splitlines()[-1] if said else f"exit {done.returncode}"
        raise CLIUnusable(
            f"`{executable}` runs on this machine but not inside the sandbox ({last}); pass the directories it "
            "needs with --sandbox-bind PATH, or --no-sandbox"
        )
    version = said.splitlines()[0][:200]
    floor = VERSION_FLOORS.get(executable)
    found = parse_version(version)
    if floor is not None and found is not None and found < floor:
        wanted = ".".join(map(str, floor))
        raise CLIUnusable(
            f"`{executable}` is {version}; SafeActBench needs {wanted} or newer (older versions are not tested, and "
            f"older Qwen Code never offers MCP tools to the model): `npm install -g {INSTALL[executable]}@{wanted}`"
        )
    return version


@dataclass(frozen=True)
class SandboxCLI:
    """The run's CLI as its episodes will run it."""

    mounts: CLIMounts
    version: str | None


def prepare_cli(executable: str, *, sandbox: bool, binds: tuple[str, ...] = (), known: bool = True) -> SandboxCLI:
    """Where the sandbox finds `executable`, and the version it runs there. A `known` CLI (a
    template's or a family CLI's) that is missing or does not run inside fails (CLIUnusable); the
    first word of a user's own command is best effort (it may be a shell builtin or a script)."""
    if not sandbox:
        if known and shutil.which(executable) is None:
            raise CLIUnusable(not_installed(executable))
        return SandboxCLI(CLIMounts(), host_version(executable))
    try:
        mounts = cli_mounts(executable)
        return SandboxCLI(mounts, check_inside(executable, mounts, binds))
    except CLIUnusable:
        if known:
            raise
        return SandboxCLI(CLIMounts(), None)


def host_version(executable: str) -> str | None:
    """What `EXECUTABLE --version` prints on this machine (first line), or None."""
    try:
        done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    said = (done.stdout or done.stderr).strip()
    return said.splitlines()[0][:200] if said else None
