"""An episode's own network: what a sandboxed CLI agent can reach, and nothing else.

A `--harness-cmd` episode runs in a network namespace of its own with only a loopback interface
(`bwrap_sandbox`). Inside it, this module opens listening sockets for exactly two things:

- the episode's tool server (`127.0.0.1:PORT`, served from the host by `gateway`);
- the model endpoint (`--base-url`): a name is mapped to a loopback address of its own in the
  sandbox's /etc/hosts, a loopback address keeps its own, and the port stays the same, so the CLI
  uses the URL it was given (TLS included: the bytes are relayed, never read).

The sockets are created inside the namespace by a short helper (`nsenter --net`) and handed back
over a unix socket, so the host process serves them while they stay reachable from that
namespace only: other episodes, `serve-agent` and every other host listener do not exist there.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit

# runs in the episode's network namespace: bind and listen, then pass the sockets back
_LISTEN = """
import socket, sys
channel = socket.socket(fileno=int(sys.argv[1]))
sockets = []
for spec in sys.argv[2:]:
    host, port = spec.rsplit(":", 1)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(port)))
    s.listen(128)
    sockets.append(s)
socket.send_fds(channel, [b"ok"], [s.fileno() for s in sockets])
"""


class NetworkSetupError(RuntimeError):
    """The episode's network could not be set up (the message says why)."""


@dataclass(frozen=True)
class Upstream:
    """A host-side endpoint an episode may reach, and where the sandbox sees it."""

    host: str  # as the URL names it
    port: int
    inside: str  # the loopback address the sandbox reaches it at

    @property
    def mapped_name(self) -> str | None:
        """The name the sandbox's /etc/hosts maps to `inside` (None for an address)."""
        return None if _is_address(self.host) or self.host == "localhost" else self.host


def upstream_of(url: str) -> Upstream:
    """The model endpoint of `--base-url`, as the sandbox reaches it.

    A name gets 127.0.0.2 (mapped in /etc/hosts); a loopback address stays itself. Any other
    address cannot be reached from a loopback-only namespace under its own number: refused."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--base-url {url!r}: expected an http(s) URL with a host")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname
    if host == "localhost":
        return Upstream(host, port, "127.0.0.1")
    if not _is_address(host):
        return Upstream(host, port, "127.0.0.2")
    if ipaddress.ip_address(host).is_loopback and ipaddress.ip_address(host).version == 4:
        return Upstream(host, port, host)
    raise ValueError(
        f"--base-url {url!r}: a sandboxed episode reaches its model by name or on 127.0.0.0/8; "
        "give the server's host name, or pass --no-sandbox"
    )


def is_local(url: str) -> bool:
    """Whether `url` is on this machine (only a local server may learn which episode calls it)."""
    host = urlsplit(url).hostname or ""
    return host == "localhost" or (_is_address(host) and ipaddress.ip_address(host).is_loopback)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def listen_in(namespace_pid: int, addresses: list[tuple[str, int]]) -> list[socket.socket]:
    """Listening TCP sockets bound at `addresses` inside the network namespace of process
    `namespace_pid` (port 0: any free port there)."""
    ours, theirs = socket.socketpair()
    argv = ["nsenter", f"--target={namespace_pid}", "--net"]
    if os.stat(f"/proc/{namespace_pid}/ns/user").st_ino != os.stat("/proc/self/ns/user").st_ino:
        argv += ["--user", "--preserve-credentials"]  # an unprivileged sandbox: its namespaces are in its own
    specs = [f"{host}:{port}" for host, port in addresses]
    argv += ["--", sys.executable, "-I", "-S", "-c", _LISTEN, str(theirs.fileno()), *specs]
    with ours, theirs:
        done = subprocess.run(argv, pass_fds=(theirs.fileno(),), capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise NetworkSetupError(f"could not listen in the episode's network ({', '.join(specs)}): {last}")
        _, fds, _, _ = socket.recv_fds(ours, 16, len(addresses))
    return [socket.socket(fileno=fd) for fd in fds]


def unreachable(url: str, seconds: float = 5.0) -> str | None:
    """Why nothing answers at `url`'s host and port (a TCP connect), or None when something does."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http(s) URL with a host"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=seconds).close()
    except OSError as exc:
        return f"nothing answers at {parts.hostname}:{port} ({exc.strerror or exc})"
    return None
