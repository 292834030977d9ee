"""One writer per run directory: an exclusive OS file lock (`flock` on `DIR/.lock`), held until the
process exits.

The operating system releases the lock when its holder dies, however it dies, so a killed run never
leaves a stale lock behind. Within one process the lock is taken once and shared (the Inspect
scorer appends to the run store the CLI opened); a second process gets a `StoreError` naming the
holder's pid.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_FILE = ".lock"
_held: dict[Path, int] = {}  # run directory -> descriptor holding the lock, in this process


class RunLocked(RuntimeError):
    """Another process holds the run directory; the message names it and its pid."""


def lock_run(directory: Path) -> None:
    """Take the run directory's lock for this process (a no-op if it holds it already)."""
    directory = directory.resolve()
    if directory in _held:
        return
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by children
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _holder(fd)
        os.close(fd)
        raise RunLocked(
            f"{directory} is in use by another safeactbench process ({holder}); "
            "a run directory has one writer at a time: wait for it to finish or stop it"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    _held[directory] = fd


def unlock_run(directory: Path) -> None:
    """Release the lock (tests and long-lived library users; a CLI process just exits)."""
    fd = _held.pop(directory.resolve(), None)
    if fd is not None:
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        pid = ""
    return f"pid {pid}" if pid.isdigit() else "pid unknown"
