"""The family-CLI path with the thinnest CLI (`thin_cli.py`) in place of the real one, for
`measure.cli_harnesses`: the same Inspect task, sandbox, tool server and model route as
`run --harness codex-cli`, with a CLI whose own work is negligible.

    python -m benchmarks.family_thin RUN_DIR CASES THIN_CLI_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import eval as inspect_eval

from safeactbench.harness.family_cli import FamilySettings, cli_episode
from safeactbench.harness.inspect_task import safeactbench


def main() -> None:
    run_dir, cases, shown = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    task = safeactbench(cases=cases, harness="codex-cli", run_dir=str(run_dir), sandbox_bind=str(shown))
    thin = f"python3 -I -S {shown / 'thin_cli.py'} {{base_url}} {{mcp_url}} {{prompt_file}} {{model}}"
    task.solver = cli_episode(FamilySettings("codex-cli", run_dir=str(run_dir), binds=(str(shown),), template=thin))
    [log] = inspect_eval(task, model="safeactbench/reference", display="none", max_samples=1,
                         log_dir=str(run_dir / "logs"))  # fmt: skip
    if log.status != "success":
        raise SystemExit(f"the eval did not succeed: {log.error}")


if __name__ == "__main__":
    main()
