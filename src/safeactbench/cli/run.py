"""`run`: play an agent (scripted, a model through a harness, or a CLI command) on the suite into a run
directory."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..agents import AGENTS
from ..harness.generation import CallPolicy
from ..harness.runtime import MAX_CONSECUTIVE_FAILURES, RunInterrupted, RunStopped
from ..runs.runconfig import (
    CLI_HARNESSES,
    EXECUTION_ARGS,
    RENAMED_HARNESSES,
    RunConfig,
)
from ..runs.runner import finish, plan, run_metadata
from ..runs.store import RunStore, StoreError
from ..runs.verify import verified_rows
from ..suite.catalog import CONDITIONS, release_suite
from .common import (
    STORED_SO_FAR,
    SuiteOption,
    app,
    choose_suite,
    console,
    err,
    fail,
    select_cases,
    split_list,
    write_report,
)
from .play import play_jobs
from .run_setup import (
    DEFAULT_CALL_RETRIES,
    check_reachable,
    generation_from,
    parse_model_args,
    preflight_model,
    prepare_cli_agent,
    run_config_for,
)
from .tables import ecs_table

DEFAULT_AGENT = "shallow"


GEN = "--model: generation setting (run.json, report):"


MODEL_HARNESSES = ("inspect", "lean", *CLI_HARNESSES)


RELEASE_SUITE_AT = 2000  # episodes; a smaller run keeps the suite loaded for its report (re-reading takes ~1 s)


@app.command()
def run(
    out: Annotated[Path, typer.Option(help="run directory (episodes.jsonl + run.json)")],
    agent: Annotated[str, typer.Option(help=f"scripted agent: {', '.join(AGENTS)}")] = DEFAULT_AGENT,
    model: Annotated[
        str | None, typer.Option(help="run a model instead (through Inspect AI by default), e.g. openai/gpt-4o-mini")
    ] = None,
    harness_name: Annotated[
        str,
        typer.Option(
            "--harness",
            help="with --model: 'inspect' (the shared ReAct loop, any Inspect provider), 'lean' (SafeActBench's own "
            "lean ReAct loop for OpenAI-compatible APIs; 'native' is its deprecated name), or a family CLI (the CLI "
            "you installed, sandboxed, its model the Inspect model): " + ", ".join(CLI_HARNESSES),
        ),
    ] = "inspect",
    model_arg: Annotated[list[str] | None, typer.Option(help="model argument KEY=VALUE (repeatable)")] = None,
    protocol: Annotated[str | None, typer.Option(help="comma-separated protocols")] = None,
    domain: Annotated[str | None, typer.Option(help="comma-separated domains")] = None,
    case_ids: Annotated[str | None, typer.Option("--cases", help="comma-separated case ids")] = None,
    condition: Annotated[
        str, typer.Option(help="comma-separated conditions (V1: all; V2/V3: withheld, contradicted)")
    ] = "original",
    repeat: Annotated[int, typer.Option(min=1, help="repetitions per case")] = 1,
    limit: Annotated[int | None, typer.Option(min=1, help="run at most this many episodes")] = None,
    harness_cmd: Annotated[
        str | None,
        typer.Option(
            help="an external CLI agent per episode (a bash command, sandboxed); placeholders {workdir} {prompt} "
            "{prompt_file} {mcp_url} {mcp_config} {base_url} {model} {episode} (docs/harnesses.md)"
        ),
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(help="the configuration's name in run.json and the report (default: the model or template)"),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="--harness-cmd: the model endpoint for {base_url} (a serve-agent: per episode)")
    ] = None,
    sandbox_bind: Annotated[
        list[str] | None, typer.Option(help="a host path the sandbox shows read-only, e.g. where a CLI is installed")
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds per episode for CLI agents")] = 900.0,
    sandbox: Annotated[
        bool, typer.Option(help="run CLI agents' episodes in the bwrap sandbox (recorded in run.json)")
    ] = True,
    max_concurrency: Annotated[int, typer.Option(min=1, help="episodes in flight (--model, --harness-cmd)")] = 8,
    retries: Annotated[
        int,
        typer.Option(min=0, help="Inspect harnesses: retries of an episode that fails at runtime before it is missing"),
    ] = 2,
    workers: Annotated[
        int, typer.Option(min=0, help="processes for --harness lean (0: one per 64 episodes in flight, ≤ cores)")
    ] = 0,
    temperature: Annotated[float | None, typer.Option(min=0, help=f"{GEN} sampling temperature")] = None,
    top_p: Annotated[float | None, typer.Option(min=0, max=1, help=f"{GEN} nucleus sampling")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help=f"{GEN} output tokens per model call")] = None,
    seed: Annotated[int | None, typer.Option(help=f"{GEN} the model's sampling seed")] = None,
    reasoning_effort: Annotated[
        str | None, typer.Option(help=f"{GEN} minimal, low, medium or high (reasoning models)")
    ] = None,
    tool_choice: Annotated[
        str | None,
        typer.Option(help=f"{GEN} auto, required or none (servers accept different ones: the preflight says which)"),
    ] = None,
    call_timeout: Annotated[
        float | None, typer.Option(min=1, help="seconds per model call attempt (default: 600 lean, provider's)")
    ] = None,
    call_retries: Annotated[
        int | None, typer.Option(min=0, help=f"retries of a failing model call (default {DEFAULT_CALL_RETRIES})")
    ] = None,
    max_runtime_failures: Annotated[
        int, typer.Option(min=0, help="stop after this many episodes in a row fail at runtime (0: never)")
    ] = MAX_CONSECUTIVE_FAILURES,
    preflight: Annotated[
        bool,
        typer.Option(
            help="--model: one test request (endpoint, model name, tool calls) before the run; --base-url: a connect"
        ),
    ] = True,
    resume: Annotated[bool, typer.Option(help="continue a run in OUT, skipping finished episodes")] = False,
    report: Annotated[bool, typer.Option(help="write OUT/report (report.md, report.html) at the end")] = True,
    suite: SuiteOption = None,
) -> None:
    """Run an agent (scripted, or a model via Inspect AI) on the suite; ECS table and report at the end."""
    choose_suite(suite)
    given = split_list(condition)
    if not given:
        raise fail(f"--condition: no values in {condition!r}")
    unknown = set(given) - set(CONDITIONS)
    if unknown:
        raise fail(f"--condition: unknown {sorted(unknown)}; available: {list(CONDITIONS)}")
    conditions = [c for c in CONDITIONS if c in given]  # one order, so one plan, however they are listed
    selected = select_cases(protocol, domain, case_ids)
    if not selected:
        named = {"--protocol": protocol, "--domain": domain, "--cases": case_ids}
        raise fail("no case is selected by " + " ".join(f"{k} {v}" for k, v in named.items() if v is not None))
    jobs = plan(selected, conditions, repeat)
    if not jobs:
        raise fail(
            f"--condition: none of the {len(selected)} selected case(s) takes {', '.join(conditions)} "
            "(the interventions need a V1-V3 case with one static decisive requirement on its first action; "
            "V2/V3 take only the stop twins)"
        )
    if limit is not None:
        jobs = jobs[:limit]
    if harness_cmd is not None and harness_name != "inspect":
        raise fail("--harness and --harness-cmd are exclusive: a run has one harness")
    cli_name, named_template = None, False
    if harness_cmd is not None:
        from ..harness.cli_templates import EXECUTABLES, expand

        try:
            template, harness_cmd = harness_cmd, expand(harness_cmd)
        except ValueError as exc:
            raise fail(str(exc)) from None
        cli_name = EXECUTABLES[template[1:]][0] if template.startswith("@") else harness_cmd.split()[0]
        named_template = template.startswith("@")
        label = label or (template[1:] if named_template else None)
    if base_url is not None and harness_cmd is None:
        raise fail("--base-url is for --harness-cmd runs; models take --model-arg base_url=...")
    if harness_name in RENAMED_HARNESSES:
        new_name = RENAMED_HARNESSES[harness_name]
        err.print(f"[yellow]warning:[/] --harness {harness_name} is deprecated; it is now --harness {new_name}")
        harness_name = new_name
    if harness_name not in MODEL_HARNESSES:
        raise fail(f"--harness: unknown {harness_name!r}; choose from {list(MODEL_HARNESSES)}")
    if harness_name != "inspect" and model is None:
        raise fail(f"--harness {harness_name} runs a model: pass --model")
    if workers and harness_name != "lean":
        raise fail("--workers: only --harness lean runs in worker processes")
    args = parse_model_args(model_arg)
    generation = generation_from(temperature, top_p, max_tokens, seed, reasoning_effort, tool_choice)
    if generation.settings() and (model is None or harness_cmd is not None):
        raise fail(
            "generation settings (--temperature, ...) are for --model runs through --harness inspect, lean or a "
            "family CLI; a --harness-cmd CLI sets its own (in its command or config)"
        )
    if harness_cmd is not None and base_url is None and re.search(r"\{(base_url|api_root)\}", harness_cmd):
        raise fail(
            "--harness-cmd: the command talks to a model at {base_url}; pass --base-url (your model server, "
            "or a `safeactbench serve-agent` for an offline run)"
        )
    policy = CallPolicy(call_timeout, call_retries, max_runtime_failures)
    filters = {"protocol": protocol, "domain": domain, "cases": case_ids}
    config = run_config_for(RunConfig(agent=agent, harness="scripted", conditions=conditions, filters=filters,
                                   generation=generation.settings()),
                         model=model, harness=harness_name, args=args, command=harness_cmd, label=label,
                         sandbox=sandbox, base_url=base_url)  # fmt: skip
    if preflight and model is not None and harness_cmd is None:
        preflight_model(config, args, generation, policy)
    known = config.harness in CLI_HARNESSES or named_template
    if config.harness in CLI_HARNESSES:
        from ..harness.family_cli import executable, missing_sdk

        cli_name = executable(config.harness)
        sdk = missing_sdk(config.harness)
        if sdk is not None:
            needs = f"--harness {config.harness}: its API needs the `{sdk}` SDK"
            raise fail(f"{needs}: pip install 'safeactbench[providers]'")
    cli = (
        None
        if cli_name is None
        else prepare_cli_agent(cli_name, bool(config.sandbox), tuple(sandbox_bind or ()), known)
    )
    if preflight and base_url is not None:
        check_reachable("--base-url", base_url)
    try:
        store = RunStore(out)
        execution = {k: v for k, v in args.items() if k in EXECUTION_ARGS} | policy.recorded()
        extra: dict[str, Any] = {"repeat": repeat, "execution": execution}
        if cli is not None:
            extra["cli"] = {"name": cli_name, "version": cli.version}
        done = store.open(config, run_metadata(**extra), planned=len(jobs), resume=resume)
    except StoreError as exc:
        raise fail(str(exc)) from None
    try:
        play_jobs(config, store, jobs, done, args, timeout=timeout, max_concurrency=max_concurrency, workers=workers,
              retries=retries, base_url=base_url, binds=tuple(sandbox_bind or ()), generation=generation,
              policy=policy, cli=None if cli is None else cli.mounts)  # fmt: skip
        meta = finish(store)
    except StoreError as exc:
        raise fail(f"{exc}\n{STORED_SO_FAR}", 1) from None
    except RunStopped as exc:
        finish(store)
        raise fail(f"{exc.message}\n{STORED_SO_FAR}", 1) from None
    except (KeyboardInterrupt, RunInterrupted):
        meta = finish(store)
        err.print(
            f"interrupted: {meta['completed']} of {meta['planned']} episodes stored in {escape(str(store.directory))}; "
            "continue the run with the same command and --resume"
        )
        raise typer.Exit(130) from None
    finally:
        store.release()
    # a resumed run's earlier records were scored by another process: summarise verdicts derived again
    rows = verified_rows(store.directory, config) if done else store.rows()
    console.print(ecs_table(rows, f"ECS of {config.agent} ({meta['completed']}/{meta['planned']} episodes)"))
    if meta.get("missing"):
        console.print(f"[yellow]missing episodes (runtime failures, not scored):[/] {meta['missing']}")
    console.print(f"episodes: {escape(str(store.episodes_path))}")
    if report:
        if len(jobs) >= RELEASE_SUITE_AT:  # the report reads cases one at a time: free the whole suite for it
            del selected, jobs
            release_suite()
        paths = write_report([store.directory], store.directory / "report")
        console.print(f"report: {paths['html']}")
    if meta["completed"] == 0 and meta["planned"]:
        raise fail(f"no episode completed (missing: {meta.get('missing') or {}}); {STORED_SO_FAR}", 1)
