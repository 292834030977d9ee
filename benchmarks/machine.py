"""What the numbers were measured on: CPU, cores, memory, Python, package versions, disk fsync cost."""

from __future__ import annotations

import os
import platform
import statistics
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "safeactbench", "inspect_ai", "pydantic", "pydantic_core", "numpy", "aiohttp", "openai", "httpx", "rich", "typer",
)  # fmt: skip


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def package_versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def fsync_us(samples: int = 50) -> float:
    """Median µs of append + flush + fsync of one ~3 KB line in the temp directory (the run store does
    this once per episode)."""
    line = b"x" * 3000 + b"\n"
    times = []
    with tempfile.TemporaryDirectory(prefix="sab-fsync-") as tmp:
        path = Path(tmp) / "episodes.jsonl"
        for _ in range(samples):
            start = time.perf_counter()
            with path.open("ab") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
            times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times)


def machine(fsync_samples: int = 50) -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": package_versions(),
        "openblas_env": {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ},
        "fsync_us": fsync_us(fsync_samples),
        "tmpdir": tempfile.gettempdir(),
    }
