"""How `run` plays its pending episodes: the configuration's harness, each episode stored as it ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ..agents import get_agent
from ..harness.generation import CallPolicy, Generation
from ..runs.runconfig import (
    CLI_HARNESSES,
    RunConfig,
)
from ..runs.runner import Job, execute, finish, play_scripted
from ..runs.store import EpisodeKey, EpisodeRecord, RunStore

if TYPE_CHECKING:
    from ..harness.cli_install import CLIMounts
    from ..harness.openai_api import Endpoint

from .common import STORED_SO_FAR, fail, progress_bar
from .run_setup import DEFAULT_CALL_RETRIES, lean_endpoint


def play_jobs(
    config: RunConfig,
    store: RunStore,
    jobs: list[Job],
    done: set[EpisodeKey],
    args: dict[str, Any],
    *,
    timeout: float,
    max_concurrency: int,
    workers: int,
    retries: int,
    base_url: str | None = None,
    binds: tuple[str, ...] = (),
    generation: Generation | None = None,
    policy: CallPolicy | None = None,
    cli: CLIMounts | None = None,
) -> None:
    """Play the jobs not yet done with the configuration's harness, each episode into `store`."""
    generation, policy = generation or Generation(), policy or CallPolicy()
    pending = [job for job in jobs if job.key not in done]
    name = config.agent  # the configuration's label: the model's name unless --label gave another
    cli_binds, cli_path = (cli.binds, cli.path) if cli is not None else ((), ())
    if config.harness == "lean":
        endpoint = lean_endpoint(config.model or name, args, generation, policy)
        play_lean(store, jobs, done, endpoint, max_concurrency, name, workers, policy.max_failures)
        return
    if config.harness == "inspect" or config.harness in CLI_HARNESSES:
        from ..harness.inspect_run import InspectFailed, run_with_inspect

        family = config.harness in CLI_HARNESSES
        try:
            run_with_inspect(
                store,
                pending,
                model=config.model or name,
                label=name,
                max_concurrency=max_concurrency,
                model_args=args,
                harness=config.harness if family else "react",
                sandbox=bool(config.sandbox),
                time_limit=int(timeout) if family else None,
                retries=retries,
                generation=generation,
                call_timeout=policy.timeout,
                call_retries=DEFAULT_CALL_RETRIES if policy.retries is None else policy.retries,
                max_failures=policy.max_failures,
                sandbox_binds=(*cli_binds, *binds),
                sandbox_path=cli_path,
            )
        except InspectFailed as exc:
            raise fail(f"{exc}\n{STORED_SO_FAR}", 1) from None
        return
    interrupt = None
    if config.harness == "command":
        from ..harness.command import CommandHarness, Settings

        harness = CommandHarness(
            Settings(
                config.command or "",
                store.directory,
                name,
                timeout,
                sandbox=bool(config.sandbox),
                model=config.model,
                base_url=base_url,
                binds=(*cli_binds, *binds),
                path=cli_path,
                max_failures=policy.max_failures,
            )
        )
        play, interrupt = harness.play, harness.interrupt
        threads = max_concurrency
    else:
        scripted = get_agent(name)

        def play(job: Job) -> EpisodeRecord:
            return play_scripted(job, scripted)

        threads = 1
    with progress_bar() as bar:
        task = bar.add_task(escape(name), total=len(jobs), completed=len(jobs) - len(pending))
        execute(jobs, play, store, done, lambda _: bar.advance(task), workers=threads, interrupt=interrupt)


def play_lean(
    store: RunStore,
    jobs: list[Job],
    done: set[EpisodeKey],
    endpoint: Endpoint,
    max_concurrency: int,
    name: str,
    workers: int,
    max_failures: int,
) -> None:
    from ..harness.lean import run_lean
    from ..harness.openai_api import EndpointRefused

    with progress_bar() as bar:
        task = bar.add_task(escape(name), total=len(jobs), completed=len(done & {j.key for j in jobs}))

        def advance(_: object) -> None:
            bar.advance(task)

        try:
            run_lean(
                store, jobs, done, endpoint, max_concurrency, advance, label=name, workers=workers,
                max_failures=max_failures,
            )  # fmt: skip
        except EndpointRefused as exc:
            finish(store)
            raise fail(f"{exc}\n{STORED_SO_FAR}", 1) from None
