"""Run one command and report its resource usage: `python -m benchmarks.launch USAGE_JSON CMD...`.

Why a launcher: Linux records, in a child's peak RSS, the high-water mark of the address space it
replaces when it execs - for a child spawned by a large process (fork or vfork), the parent's own
peak. A benchmark that has read a few thousand records would see every command it measures "use"
at least that much. This small, fresh process spawns the command instead, so the peak that
`wait4` reports is the command's own. The command's exit status and usage go to USAGE_JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def main(argv: list[str]) -> int:
    usage_path, cmd = argv[0], argv[1:]
    proc = subprocess.Popen(cmd)  # a timeout kills the launcher's whole process group (`run_measured`)
    _, status, usage = os.wait4(proc.pid, 0)
    result = {
        "returncode": os.waitstatus_to_exitcode(status),
        "max_rss_kb": usage.ru_maxrss,  # Linux reports KiB
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
    }
    with open(usage_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
