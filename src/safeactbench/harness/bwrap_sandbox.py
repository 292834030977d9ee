"""A bubblewrap sandbox for CLI agents, one per episode (`command`, `family_cli`).

An episode's CLI agent (Codex CLI, Claude Code, ...) runs with a shell and file tools of its own; it
must not read the answers. Everything it runs is in a bubblewrap mount namespace that shows only:

- the system, read-only: /usr, /bin, /sbin, /lib*, /etc, /opt (where node and an npm-installed CLI
  live), plus any `binds` the configuration adds;
- the episode's own writable directories: /work (the working directory, opaquely named on the host),
  /tmp, /var/tmp and $HOME=/home/agent.

Not shown: the project, the virtualenv and the installed package (suite data, hidden material),
run directories, other episodes, the user's home (API keys, CLI credentials), and the host's
environment variables (the environment is cleared; only PATH, HOME, LANG and what the caller passes
are set). With `network: false` (the default) the episode has its own network namespace with only a
loopback interface (where `episode_net` opens its tool server and model endpoint), and its own pid
namespace, both kept by a keeper process for the episode's life: nothing reaches the host or the
internet, and every process of the episode dies with the keeper, which dies with this process.

Needs Debian's `bubblewrap` (and `nsenter` from util-linux to join the episode's namespaces); runs as
root or where unprivileged user namespaces are allowed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field

SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
WORKDIR, HOME = "/work", "/home/agent"
WRITABLE = {WORKDIR: "work", "/tmp": "tmp", "/var/tmp": "var_tmp", HOME: "home"}  # sandbox path -> host dir
MARKER = "SANDBOX_ID"  # set in every process of an episode, to find them all at cleanup (neutral: the agent sees it)
BASE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": HOME, "LANG": "C.UTF-8"}


class BwrapConfig(BaseModel):
    """What an episode's sandbox shows; the defaults suit an episode of a CLI agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    binds: tuple[str, ...] = Field(default=(), description="extra host paths shown read-only")
    path: tuple[str, ...] = Field(default=(), description="directories put first on the sandbox's PATH")
    hosts: tuple[tuple[str, str], ...] = Field(
        default=(), description="(name, address) lines of the sandbox's /etc/hosts (empty: the host's file)"
    )
    network: bool = Field(default=False, description="share the host's network (False: loopback only)")

    def environment(self) -> dict[str, str]:
        """BASE_ENV with `path` in front of PATH."""
        return {**BASE_ENV, "PATH": ":".join((*self.path, BASE_ENV["PATH"]))}


def hidden_paths() -> list[str]:
    """Host paths never shown, even below a system root: this package (its suite data and hidden
    material), the Python environment running it, and the working directory (where runs go)."""
    package = Path(__file__).resolve().parents[1]
    return [str(p) for p in {package, Path(sys.prefix).resolve(), Path.cwd().resolve()} if str(p) != "/"]


def missing_tools() -> list[str]:
    """Programs the sandbox needs that this machine lacks."""
    return [tool for tool in ("bwrap", "nsenter") if shutil.which(tool) is None]


class BwrapSandbox:
    """One episode's sandbox: a host directory with its writable parts (the caller's: it outlives the
    sandbox, the episode's logs are read from it) and a keeper process holding its pid namespace
    and, without network, its network namespace; `sandbox_id` marks its processes."""

    def __init__(self, config: BwrapConfig, root: Path, sandbox_id: str) -> None:
        self.config = config
        self.id = sandbox_id
        self.root = prepare_root(root)
        self.keeper: subprocess.Popen[bytes] | None = None
        self.namespaces: int | None = None  # pid of the keeper's child, whose net and pid namespaces execs join

    def start_keeper(self) -> None:
        """The episode's sandbox: a process holding its mount namespace (the file system below), its
        pid namespace and, without `network`, its loopback-only network namespace. Every exec
        enters all three (`command`), so files and background servers persist between execs, /proc
        shows the episode's processes only, and everything dies with the keeper - which dies with
        this process, however it dies (--die-with-parent)."""
        read, write = os.pipe()
        namespaces = ["--unshare-pid", *([] if self.config.network else ["--unshare-net"]), "--info-fd", str(write)]
        hosts = None
        if self.config.hosts:
            hosts = self.root / "hosts"
            lines = ["127.0.0.1 localhost", *(f"{address} {name}" for name, address in self.config.hosts)]
            hosts.write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = bwrap_argv(
            ["sleep", "infinity"], root=self.root, cwd=WORKDIR, env=self.config.environment(), sandbox_id=self.id,
            binds=self.config.binds, hosts_file=hosts,
        )  # fmt: skip
        self.keeper = subprocess.Popen(
            [argv[0], *namespaces, *argv[1:]],
            pass_fds=(write,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(write)
        with os.fdopen(read, "rb") as info:
            data = info.read()
        try:
            child = int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            stderr = self.keeper.stderr.read().decode(errors="replace") if self.keeper.stderr else ""
            self.destroy()
            raise RuntimeError(f"bwrap could not create the episode's sandbox: {stderr.strip()}") from None
        _await_exec(child, b"sleep")  # its mounts are in place once the child runs `sleep`
        self.namespaces = child

    def destroy(self) -> None:
        """Kill every process of the episode (found by their marker) and the keeper."""
        kill_sandbox(self.id)
        if self.keeper is not None and self.keeper.poll() is None:
            self.keeper.kill()
            self.keeper.wait()

    # -- commands ---------------------------------------------------------------------------------
    def command(self, cmd: list[str], cwd: str, env: dict[str, str]) -> list[str]:
        """`cmd` inside the episode's namespaces, in `cwd`, with a cleared environment."""
        if self.namespaces is None:
            raise RuntimeError("the sandbox has no keeper: start_keeper did not run")
        network = [] if self.config.network else ["--net"]
        variables = [f"{k}={v}" for k, v in {**self.config.environment(), **env, MARKER: self.id}.items()]
        return ["nsenter", f"--target={self.namespaces}", "--mount", "--pid", *network, f"--wdns={cwd}", "--",
                "env", "-i", *variables, *cmd]  # fmt: skip


def prepare_root(root: Path) -> Path:
    """`root` with the host directories behind a sandbox's writable paths (WRITABLE)."""
    for name in WRITABLE.values():
        (root / name).mkdir(mode=0o755, parents=True, exist_ok=True)
    return root


def bwrap_argv(
    cmd: list[str],
    *,
    root: Path,
    cwd: str,
    env: dict[str, str],
    sandbox_id: str,
    binds: tuple[str, ...] = (),
    own_pids: bool = False,
    hosts_file: Path | None = None,
) -> list[str]:
    """`cmd` in a fresh bwrap mount namespace: the system read-only (SYSTEM_ROOTS), `root`'s
    directories at the WRITABLE paths, then `binds` read-only (so a bind under /tmp is seen), the
    hidden paths covered, `hosts_file` as /etc/hosts, and a cleared environment with BASE_ENV, `env`
    and the sandbox marker. The network is the caller's. With `own_pids`, `cmd` gets its own pid
    namespace: everything it starts ends when it ends."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--clearenv", "--proc", "/proc", "--dev", "/dev"]
    if own_pids:
        args.append("--unshare-pid")
    for path in SYSTEM_ROOTS:
        if Path(path).is_symlink():
            args += ["--symlink", os.readlink(path), path]
        elif Path(path).exists():
            args += ["--ro-bind", path, path]
    for inside, name in WRITABLE.items():
        args += ["--bind", str(root / name), inside]
    for path in binds:
        if Path(path).exists():
            args += ["--ro-bind", str(Path(path).resolve()), path]
    shown = (*SYSTEM_ROOTS, *binds)
    for hidden in hidden_paths():
        if any(PurePosixPath(hidden).is_relative_to(r) for r in shown):
            args += ["--tmpfs", hidden]
    if hosts_file is not None:
        args += ["--ro-bind", str(hosts_file), "/etc/hosts"]
    for key, value in {**BASE_ENV, **env, MARKER: sandbox_id}.items():
        args += ["--setenv", key, value]
    return [*args, "--chdir", cwd, "--", *cmd]


def _await_exec(pid: int, program: bytes, seconds: float = 10.0) -> None:
    """Wait until process `pid` (bwrap's init in the new pid namespace) has a child running
    `program`: bwrap has set the sandbox up by then."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            if any(Path(f"/proc/{c}/cmdline").read_bytes().split(b"\0")[0] == program for c in children):
                return
        time.sleep(0.005)
    raise RuntimeError(f"the sandbox did not start within {seconds:.0f}s")


def kill_sandbox(sandbox_id: str) -> None:
    """SIGKILL every process started in the sandbox `sandbox_id` (they carry its marker)."""
    for pid in _marked_processes(sandbox_id):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _marked_processes(sandbox_id: str) -> list[int]:
    marker = f"{MARKER}={sandbox_id}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
    return found
