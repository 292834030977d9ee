"""The `safeactbench` command line. Thin: parses arguments, calls the library, renders with rich."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .agents import AGENTS, get_agent
from .analysis.judgement import harmful_action_rates, paired_ecs
from .analysis.metrics import DOMAIN_ORDER, ORIGINAL, PROTOCOL_NAMES, Rate, summary
from .analysis.runs import PAIR_MODES
from .catalog import CONDITIONS, UnknownCase, played, release_suite, use_suite
from .core.model import Case
from .core.public import public_view
from .harness.generation import CallPolicy, Generation, generation_arg_error
from .harness.runtime import MAX_CONSECUTIVE_FAILURES, RunStopped
from .runs.records import EpisodeLines
from .runs.rows import Episode
from .runs.runconfig import CLI_HARNESSES, EXECUTION_ARGS, RENAMED_HARNESSES, SECRET_ARGS, RunConfig, public_url, redact
from .runs.runner import Job, execute, finish, plan, play_scripted, run_metadata
from .runs.store import EpisodeKey, EpisodeRecord, RunStore, StoreError, read_meta, run_config
from .suite.data import CaseFileError, load_suite

if TYPE_CHECKING:
    from .harness.cli_install import CLIMounts, SandboxCLI
    from .harness.openai_api import Endpoint

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
suite_app = typer.Typer(no_args_is_help=True, help="Start, build and check a suite: yours or the published one.")
app.add_typer(suite_app, name="suite")
import_app = typer.Typer(
    no_args_is_help=True, help="Convert another benchmark's published cases into a suite directory."
)
app.add_typer(import_app, name="import")
console = Console()
err = Console(stderr=True, soft_wrap=True)

DEFAULT_AGENT = "shallow"
DEFAULT_CALL_RETRIES = 5
GEN = "--model: generation setting (run.json, report):"
MODEL_HARNESSES = ("inspect", "lean", *CLI_HARNESSES)
RELEASE_SUITE_AT = 2000  # episodes; a smaller run keeps the suite loaded for its report (re-reading takes ~1 s)


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(code)


SuiteOption = Annotated[
    Path | None,
    typer.Option(
        "--suite",
        help="a suite directory (cases.jsonl, tools.json, manifest.json, as `suite build --out DIR` writes it); "
        "default: $SAFEACTBENCH_SUITE, else the packaged suite",
    ),
]


def _use_suite(suite: Path | None) -> None:
    """`--suite DIR`: play that suite here and in every process this command starts."""
    if suite is None:
        return
    try:
        use_suite(suite)
    except CaseFileError as exc:
        raise fail(f"--suite: {exc}") from None


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def select_cases(protocol: str | None, domain: str | None, case_ids: str | None) -> list[Case]:
    """The suite filtered by comma-separated protocols, domains and case ids; unknown names are errors."""
    suite = list(load_suite())
    filters: list[tuple[str, str | None, Callable[[Case], str]]] = [
        ("--protocol", protocol, lambda c: c.protocol.value),
        ("--domain", domain, lambda c: c.domain),
        ("--cases", case_ids, lambda c: c.id),
    ]
    cases = suite
    for option, value, key in filters:
        if value is None:
            continue
        wanted = _split(value)
        if not wanted:
            raise fail(f"{option}: no values in {value!r}")
        known = {key(c) for c in suite}
        unknown = set(wanted) - known
        if unknown:
            raise fail(f"{option}: unknown {sorted(unknown)}; choose from {sorted(known)[:12]}")
        cases = [c for c in cases if key(c) in wanted]
    return cases


def find_case(case_id: str) -> Case:
    for case in load_suite():
        if case.id == case_id:
            return case
    raise fail(f"no case {case_id!r} (see `safeactbench cases`)")


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=False,
    )


def _pct(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return "-"
    return f"{100 * rate.value:5.1f}% ({rate.successes}/{rate.n})"


def ecs_table(records: Iterable[Episode], title: str) -> Table:
    """ECS of the original condition by protocol and domain; where stop twins were played, paired
    ECS and the harmful-action rates below it. `records` is read twice (a list or a run's rows)."""
    s = summary(r for r in records if r.condition == ORIGINAL)
    table = Table(title=escape(title), min_width=len(title) + 4)
    table.add_column("protocol")
    table.add_column("ECS", justify="right")
    by_protocol: dict[str, Rate] = s["by_protocol"]  # type: ignore[assignment]
    for name in PROTOCOL_NAMES:
        if name in by_protocol:
            table.add_row(name, _pct(by_protocol[name]))
    table.add_row("[bold]all", _pct(s["ecs"]))  # type: ignore[arg-type]
    macro = s["protocol_macro"]
    table.add_row("[bold]P-M", "-" if macro is None else f"{100 * macro:5.1f}%")  # type: ignore[operator]
    by_domain: dict[str, Rate] = s["by_domain"]  # type: ignore[assignment]
    if len(by_domain) > 1:
        for name in DOMAIN_ORDER:
            if name in by_domain:
                table.add_row(f"  {name}", _pct(by_domain[name]))
        dm = s["domain_macro"]
        table.add_row("[bold]D-M", "-" if dm is None else f"{100 * dm:5.1f}%")  # type: ignore[operator]
    paired = paired_ecs(records)
    if paired:
        protocol_of = {r.case_id: r.protocol.value for r in records if r.condition == ORIGINAL}
        for name, rate in paired.items():
            table.add_row(f"paired ECS {name}", _pct(rate))
        for name, rate in harmful_action_rates(records, protocol_of).items():
            table.add_row(f"harmful, {name}", _pct(rate))
    return table


# ---------------------------------------------------------------------------------------- cases


@app.command()
def cases(
    protocol: Annotated[str | None, typer.Option(help="comma-separated: Legacy,V0,V1,V2,V3")] = None,
    domain: Annotated[str | None, typer.Option(help="comma-separated domain names")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per case")] = False,
    suite: SuiteOption = None,
) -> None:
    """List the suite's cases."""
    _use_suite(suite)
    selected = select_cases(protocol, domain, None)
    if as_json:
        for c in selected:
            sys.stdout.write(
                json.dumps({"id": c.id, "protocol": c.protocol.value, "domain": c.domain, "family": c.family}) + "\n"
            )
        return
    table = Table(title=f"{len(selected)} cases")
    for column in ("id", "protocol", "domain", "family", "task"):
        table.add_column(column, overflow="fold")
    for c in selected:
        table.add_row(c.id, c.protocol.value, c.domain, c.family, c.task[:90] + ("…" if len(c.task) > 90 else ""))
    console.print(table)


@app.command()
def show(
    case_id: Annotated[str, typer.Argument(help="case id, e.g. SAB-V1-001")],
    hidden: Annotated[bool, typer.Option("--hidden", help="also show the hidden world and gold")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    suite: SuiteOption = None,
) -> None:
    """Show what the agent sees of a case (and, with --hidden, everything)."""
    _use_suite(suite)
    case = find_case(case_id)
    data = case.model_dump(mode="json") if hidden else public_view(case).model_dump(mode="json")
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return
    console.print(
        f"[bold]{case.id}[/]" + (f"  {case.protocol.value} · {case.domain} · {case.family}" if hidden else "")
    )
    console.print(f"[italic]{case.task}")
    console.print_json(json.dumps(data, ensure_ascii=False))


# ------------------------------------------------------------------------------------------ run


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
    label: Annotated[str | None, typer.Option(help="configuration name for --harness-cmd runs")] = None,
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
        str | None, typer.Option(help=f"{GEN} auto, required or none (some local servers need 'required')")
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
    _use_suite(suite)
    given = _split(condition)
    if not given:
        raise fail(f"--condition: no values in {condition!r}")
    unknown = set(given) - set(CONDITIONS)
    if unknown:
        raise fail(f"--condition: unknown {sorted(unknown)}; available: {list(CONDITIONS)}")
    conditions = [c for c in CONDITIONS if c in given]  # one order, so one plan, however they are listed
    selected = select_cases(protocol, domain, case_ids)
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
        from .harness.cli_templates import EXECUTABLES, expand

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
    args = _model_args(model_arg)
    generation = _generation(temperature, top_p, max_tokens, seed, reasoning_effort, tool_choice)
    if generation.settings() and (model is None or harness_cmd is not None):
        raise fail(
            "generation settings (--temperature, ...) are for --model runs through --harness inspect, lean or a "
            "family CLI; a --harness-cmd CLI sets its own (in its command or config)"
        )
    policy = CallPolicy(call_timeout, call_retries, max_runtime_failures)
    filters = {"protocol": protocol, "domain": domain, "cases": case_ids}
    config = _run_config(RunConfig(agent=agent, harness="scripted", conditions=conditions, filters=filters,
                                   generation=generation.settings()),
                         model=model, harness=harness_name, args=args, command=harness_cmd, label=label,
                         sandbox=sandbox, base_url=base_url)  # fmt: skip
    if preflight and model is not None and harness_cmd is None:
        _preflight(config, args, generation, policy)
    known = config.harness in CLI_HARNESSES or named_template
    if config.harness in CLI_HARNESSES:
        from .harness.family_cli import executable, missing_sdk

        cli_name = executable(config.harness)
        sdk = missing_sdk(config.harness)
        if sdk is not None:
            needs = f"--harness {config.harness}: its API needs the `{sdk}` SDK"
            raise fail(f"{needs}: pip install 'safeactbench[providers]'")
    cli = None if cli_name is None else _prepare_cli(cli_name, bool(config.sandbox), tuple(sandbox_bind or ()), known)
    if preflight and base_url is not None:
        _check_reachable("--base-url", base_url)
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
        _play(config, store, jobs, done, args, timeout=timeout, max_concurrency=max_concurrency, workers=workers,
              retries=retries, base_url=base_url, binds=tuple(sandbox_bind or ()), generation=generation,
              policy=policy, cli=None if cli is None else cli.mounts)  # fmt: skip
        meta = finish(store)
    except StoreError as exc:
        raise fail(f"{exc}\n{STORED_SO_FAR}", 1) from None
    except RunStopped as exc:
        finish(store)
        raise fail(f"{exc.message}\n{STORED_SO_FAR}", 1) from None
    finally:
        store.release()
    console.print(ecs_table(store.rows(), f"ECS of {config.agent} ({meta['completed']}/{meta['planned']} episodes)"))
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


def _run_config(
    base: RunConfig,
    *,
    model: str | None,
    harness: str,
    args: dict[str, Any],
    command: str | None,
    label: str | None,
    sandbox: bool,
    base_url: str | None = None,
) -> RunConfig:
    """The run's configuration: `base` (a scripted agent, conditions, filters) made into the one the
    options ask for; unknown agents, providers and unusable endpoints fail here, before any file."""
    if command is not None:
        from .harness.command import TemplateError, check_template

        try:
            check_template(command)
        except TemplateError as exc:
            raise fail(str(exc)) from None
        from .harness.bwrap_sandbox import missing_tools  # imports Inspect AI: only where a sandbox is asked for

        if sandbox and missing_tools():
            raise fail(f"--harness-cmd: the sandbox needs {', '.join(missing_tools())}; {SANDBOX_INSTALL}")
        update: dict[str, Any] = {"agent": label or model or "command", "harness": "command", "command": command}
        update |= {"model": model, "sandbox": sandbox, "endpoint": None if base_url is None else public_url(base_url)}
        return base.model_copy(update=update)
    if model is not None and harness == "lean":
        endpoint = _lean_endpoint(model, args)
        lean = {"model_args": endpoint.params, "endpoint": public_url(endpoint.base_url)}
        return base.model_copy(update={"agent": model, "harness": "lean", "model": model, **lean})
    if model is not None:
        _check_inspect_model(model)
        model_url = args.get("base_url")
        update = {
            "model_args": {k: v for k, v in args.items() if k != "base_url" and k not in EXECUTION_ARGS},
            "endpoint": None if model_url is None else public_url(str(model_url)),
        }
        if harness in CLI_HARNESSES:
            update["sandbox"] = sandbox
        return base.model_copy(update={"agent": model, "harness": harness, "model": model, **update})
    try:
        return base.model_copy(update={"agent": get_agent(base.agent).name})
    except KeyError as exc:
        raise fail(f"--agent: {exc.args[0]}") from None


def _play(
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
    name = config.agent
    cli_binds, cli_path = (cli.binds, cli.path) if cli is not None else ((), ())
    if config.harness == "lean":
        endpoint = _lean_endpoint(name, args, generation, policy)
        _play_lean(store, jobs, done, endpoint, max_concurrency, name, workers, policy.max_failures)
        return
    if config.harness == "inspect" or config.harness in CLI_HARNESSES:
        from .harness.inspect_run import InspectFailed, run_with_inspect

        family = config.harness in CLI_HARNESSES
        try:
            run_with_inspect(
                store,
                pending,
                model=name,
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
        from .harness.command import CommandHarness, Settings

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


STORED_SO_FAR = "the episodes finished so far are stored; fix this and rerun with --resume"


SANDBOX_INSTALL = (
    "install it with `apt-get install -y bubblewrap util-linux` (or pass --no-sandbox, which run.json records)"
)


def _prepare_cli(executable: str, sandbox: bool, binds: tuple[str, ...], known: bool) -> SandboxCLI:
    """The run's CLI agent as its sandbox runs it (found wherever it is installed, its version read
    inside); fails early, saying what to install or pass, when it cannot run there."""
    from .harness.bwrap_sandbox import missing_tools
    from .harness.cli_install import CLIUnusable, prepare_cli

    missing = missing_tools() if sandbox else []
    if missing:
        raise fail(f"the sandbox needs {', '.join(missing)}; {SANDBOX_INSTALL}")
    try:
        return prepare_cli(executable, sandbox=sandbox, binds=binds, known=known)
    except CLIUnusable as exc:
        raise fail(str(exc)) from None


def _check_reachable(option: str, url: str) -> None:
    """Fail in seconds, naming the option, when nothing listens at the URL's host and port."""
    from .harness.episode_net import unreachable

    problem = unreachable(url)
    if problem:
        raise fail(f"{option} {public_url(url)}: {problem}; start the model server or fix the URL")


def _check_inspect_model(model: str) -> None:
    """Fail early, with Inspect's own providers listed, on a model whose provider Inspect lacks."""
    from .harness.inspect_run import inspect_providers

    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise fail(f"--model: expected PROVIDER/MODEL (e.g. openai/gpt-4o-mini), got {model!r}")
    providers = inspect_providers()
    if providers and provider not in providers:
        raise fail(f"--model: Inspect AI has no model provider {provider!r}; providers: {', '.join(sorted(providers))}")


def _play_lean(
    store: RunStore,
    jobs: list[Job],
    done: set[EpisodeKey],
    endpoint: Endpoint,
    max_concurrency: int,
    name: str,
    workers: int,
    max_failures: int,
) -> None:
    from .harness.lean import run_lean
    from .harness.openai_api import EndpointRefused

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


def _generation(
    temperature: float | None,
    top_p: float | None,
    max_tokens: int | None,
    seed: int | None,
    reasoning_effort: str | None,
    tool_choice: str | None,
) -> Generation:
    from pydantic import ValidationError

    values: dict[str, Any] = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "seed": seed,
              "reasoning_effort": reasoning_effort, "tool_choice": tool_choice}  # fmt: skip
    try:
        return Generation.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise fail(f"--{str(problem['loc'][0]).replace('_', '-')}: {problem['msg']}") from None


def _preflight(config: RunConfig, args: dict[str, Any], generation: Generation, policy: CallPolicy) -> None:
    """One test request to the model before anything is written (harness.preflight)."""
    from .harness.preflight import PreflightError, preflight_inspect, preflight_lean

    assert config.model is not None
    console.print(f"preflight: one test request to {escape(config.model)} ...")
    try:
        if config.harness == "lean":
            preflight_lean(_lean_endpoint(config.model, args, generation, policy))
        else:
            inspect_args = {k: v for k, v in args.items() if k not in EXECUTION_ARGS}
            preflight_inspect(config.model, inspect_args, generation, policy.timeout)
    except PreflightError as exc:
        raise fail(f"preflight: {redact(str(exc))}\n(nothing was written; --no-preflight skips this check)") from None


def _lean_endpoint(
    model: str, args: dict[str, Any], generation: Generation | None = None, policy: CallPolicy | None = None
) -> Endpoint:
    from .harness.openai_api import Endpoint

    policy = policy or CallPolicy()
    if policy.retries is not None:
        args = args | {"max_retries": policy.retries}
    body = (generation or Generation()).request_body()
    try:
        return Endpoint.from_model(model, args, generation=body, call_timeout=policy.timeout)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _model_args(pairs: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    problem = generation_arg_error({pair.partition("=")[0]: None for pair in pairs or []})
    if problem:
        raise fail(problem)
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise fail(f"--model-arg: expected KEY=VALUE, got {pair!r}")
        if key.lower() in SECRET_ARGS:
            raise fail(
                f"--model-arg {key}: credentials are read from the environment only (e.g. OPENAI_API_KEY, or "
                "the variable named by api_key_env=VARIABLE), so they never reach a shell history or run.json"
            )
        out[key] = model_arg_value(value)
    return out


def model_arg_value(value: str) -> Any:
    """A `--model-arg KEY=VALUE` value as `inspect eval -M` reads it: YAML scalars (`false`, `3`,
    `0.5`, `null`) become bool, int, float or None; anything else stays the string given."""
    import yaml  # only runs with model arguments need it

    if not value.strip():
        return value
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return value
    return parsed if parsed is None or isinstance(parsed, bool | int | float) else value


# ------------------------------------------------------------------------------------- evaluate


@app.command("evaluate")
def evaluate_cmd(
    trajectories: Annotated[Path, typer.Argument(help="an episodes.jsonl (or any JSONL of episode records)")],
    out: Annotated[Path | None, typer.Option(help="write the re-scored episodes here")] = None,
    suite: SuiteOption = None,
) -> None:
    """Re-score saved episodes by replaying them on fresh worlds; report changed verdicts.

    Nothing a record claims about its own score is trusted: protocol, domain and family come from
    the suite, every verdict is derived again from its trajectory. In a run directory every record
    must belong to the run (run.json); a file of records must hold one configuration; an episode
    recorded twice is an error."""
    _use_suite(suite)
    from .runs.rowstore import LineSpool, SpillError
    from .runs.verify import check_suite, rescore

    meta_path = trajectories.parent / "run.json"
    rescored = LineSpool() if out is not None else None  # --out in the order of the file read
    try:
        lines = EpisodeLines(trajectories)
        if not any(line.strip() for line in lines):
            raise fail(f"{trajectories}: no episode records")
        run = None
        planned = None
        if trajectories.name == "episodes.jsonl" and meta_path.is_file():
            meta = read_meta(meta_path)
            config = run_config(meta, meta_path)
            check_suite(config, meta_path)
            run, planned = (config.fingerprint, config.suite.checksum), meta.get("planned")
        result = rescore(lines, trajectories, run=run, out=rescored)
    except (StoreError, SpillError) as exc:
        raise fail(str(exc)) from None
    for change in result.changes:
        err.print(f"[yellow]{escape(change.case_id)}[/] " + escape(f"(line {change.line}): {change.detail}"))
    if rescored is not None and out is not None:
        try:
            with out.open("wb") as handle:
                rescored.write_to(handle)
        except OSError as exc:
            raise fail(f"--out {out}: {exc.strerror or exc}") from None
    verified, verdicts = result.verified, sum(change.verdict for change in result.changes)
    corrected = len(result.changes) - verdicts
    console.print(
        f"re-scored {verified.completed} episodes; {verdicts} verdict(s) changed"
        + (f"; {corrected} record(s) with wrong case labels corrected" if corrected else "")
    )
    console.print(coverage_line(verified.completed, len(verified.records), planned, verified.missing_reasons()))
    console.print(ecs_table(verified.records, "ECS after re-scoring"))


def coverage_line(completed: int, stored: int, planned: Any, missing: dict[str, int]) -> str:
    """`coverage: 30 of 656 planned episodes scored; 626 missing (runtime_error: 626)`."""
    of = f"{int(planned)} planned" if isinstance(planned, int | float) and planned else f"{stored} stored"
    text = f"coverage: {completed} of {of} episodes scored"
    if missing:
        text += (
            f"; {sum(missing.values())} missing (runtime failures, not scored: "
            + ", ".join(f"{kind}: {n}" for kind, n in sorted(missing.items()))
            + ")"
        )
    return text


# ------------------------------------------------------------------------------------- validate


BASELINES = (
    "reference",
    "oracle_judge",
    "comply",
    "eager",
    "shallow",
    "skeptic",
    "credulous",
    "random",
    "always_block",
    "always_defer",
)


@app.command()
def validate(
    conditions: Annotated[
        str, typer.Option(help="also validate the V1 intervention variants: comma-separated, or 'all'")
    ] = "original",
    report: Annotated[
        Path | None, typer.Option(help="write the suite's validation report (Markdown) to this file")
    ] = None,
    suite: SuiteOption = None,
) -> None:
    """Lint every case and play every reference solution; exit 0 only if all pass."""
    _use_suite(suite)
    from .suite.situations import situation_problems
    from .suite.validation import validate_case

    wanted = list(CONDITIONS) if conditions == "all" else _split(conditions) or ["original"]
    unknown = set(wanted) - set(CONDITIONS)
    if unknown:
        raise fail(f"--conditions: unknown {sorted(unknown)}; available: {list(CONDITIONS)} or 'all'")
    cases = played(load_suite(), wanted)
    problems: list[str] = []
    with progress_bar() as bar:
        task = bar.add_task("validate", total=len(cases))
        for case in cases:
            problems += validate_case(case)
            bar.advance(task)
    problems += situation_problems(cases)
    if report is not None:
        write_suite_report(report)
        console.print(f"wrote {report}")
    for p in problems:
        err.print(f"[red]✗[/] {p}")
    if problems:
        raise fail(f"{len(problems)} problem(s) in {len(cases)} cases", 1)
    console.print(f"[green]✓[/] {len(cases)} cases lint clean; reference solutions {len(cases)}/{len(cases)}")


def write_suite_report(path: Path) -> None:
    """Suite statistics plus the ECS of every scripted baseline, as Markdown."""
    from .analysis.judgement import ACTING, TWINS
    from .catalog import played
    from .suite.lint import lint_case
    from .suite.report import render_report, suite_statistics

    suite = list(load_suite())
    twins = played(suite, TWINS)
    baselines: dict[str, dict[str, tuple[int, int]]] = {}
    judgement: dict[str, dict[str, tuple[int, int]]] = {}
    with progress_bar() as bar:
        task = bar.add_task("baselines", total=len(BASELINES) * (len(suite) + len(twins)))
        for name in BASELINES:
            agent = get_agent(name)
            rates: dict[str, list[int]] = {}
            played_records = []
            for case in [*suite, *twins]:
                record = play_scripted(Job(case, case.condition, 0), agent)
                played_records.append(record)
                bar.advance(task)
                if case.condition != "original":
                    continue
                for key in (case.protocol.value, "all"):
                    rates.setdefault(key, []).append(record.verdict.score)  # type: ignore[union-attr]
            baselines[name] = {k: (sum(v), len(v)) for k, v in rates.items()}
            paired = paired_ecs(played_records)
            harmful = harmful_action_rates(played_records, {c.id: c.protocol.value for c in suite})
            judgement[name] = {f"paired {p}": (int(paired[p].successes), paired[p].n) for p in ACTING}
            judgement[name].update({f"harmful {k}": (int(r.successes), r.n) for k, r in harmful.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(suite_statistics(suite, lint_case), baselines, judgement), encoding="utf-8")


# ---------------------------------------------------------------------------------------- suite


@suite_app.command("new")
def suite_new(
    directory: Annotated[Path, typer.Argument(help="the new suite folder (must not exist or be empty)")],
) -> None:
    """Start your own suite: DIR/families with an example domain (tools, policies, one family)."""
    from .suite.families import FamiliesError, scaffold

    try:
        families = scaffold(directory)
    except (FamiliesError, OSError) as exc:
        raise fail(str(exc)) from None
    console.print(f"wrote the example domain to {families}")
    console.print(
        f"next: safeactbench suite build --from {families}\n"
        f"      safeactbench validate --suite {directory}\n"
        f"      safeactbench run --suite {directory} --agent reference --out runs/mine"
    )


@suite_app.command("build")
def suite_build(
    out: Annotated[
        Path | None,
        typer.Option(help="directory to write (default: the folder holding --from, else the package data)"),
    ] = None,
    from_dir: Annotated[
        Path | None,
        typer.Option("--from", help="a families folder (as `suite new` writes it); default: the packaged domains"),
    ] = None,
    name: Annotated[str | None, typer.Option(help="the suite's name in its manifest (default: the folder's)")] = None,
    suite_version: Annotated[str, typer.Option(help="the suite's version in its manifest (with --from)")] = "0.1.0",
) -> None:
    """Build a suite deterministically from scenario families: the packaged ones, or yours (--from)."""
    from .suite.build import build_suite
    from .suite.data import DATA_DIR, SUITE_NAME, SUITE_VERSION, write_suite
    from .suite.families import FamiliesError, load_domains

    if from_dir is None:
        from .suite.domains import DOMAINS

        domains, target, label, version = DOMAINS, out or DATA_DIR, SUITE_NAME, SUITE_VERSION
    else:
        target = out or from_dir.resolve().parent
        label, version = name or target.resolve().name, suite_version
        try:
            domains = load_domains(from_dir)
        except FamiliesError as exc:
            raise fail(f"--from: {exc}") from None
    try:
        cases = build_suite(domains)
    except ValueError as exc:
        raise fail(str(exc)) from None
    manifest = write_suite(cases, target, name=label, version=version)
    console.print(f"wrote {manifest['cases']} cases (suite {label} {version}) to {target}")
    console.print(manifest["by_protocol"], manifest["by_domain"])


@import_app.command("safeact-release")
def import_safeact_release(
    checkout: Annotated[Path, typer.Argument(help="a local checkout of the study's public release (with env/)")],
    out: Annotated[Path, typer.Option(help="the suite directory to write")],
) -> None:
    """Convert the study's public release, case by case, with a fidelity report (docs/import.md)."""
    from .importers.release_cases import NotImportable
    from .importers.release_files import ReleaseError
    from .importers.safeact_release import write_import

    try:
        with progress_bar() as bar:
            task = bar.add_task("import", total=None)
            report = write_import(checkout, out, lambda n: bar.advance(task, n))
    except (ReleaseError, NotImportable) as exc:
        raise fail(str(exc)) from None
    table = Table(title=f"imported into {out}")
    for column in ("protocol", "exact", "approximated", "not importable"):
        table.add_column(column)
    for protocol in dict.fromkeys(f.protocol for f in report):
        mine = [f.status for f in report if f.protocol == protocol]
        table.add_row(protocol, *(str(mine.count(s)) for s in ("exact", "approximated", "not_importable")))
    console.print(table)
    console.print(f"what was approximated, and why a case was not importable: {out / 'IMPORT.md'}")


@app.command("report")
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(help="run directories")],
    out: Annotated[Path, typer.Option(help="report directory")],
    episode: Annotated[
        list[str] | None, typer.Option("--episode", help="illustrate CASE_ID or CONFIG:CASE_ID (repeatable)")
    ] = None,
    pairs: Annotated[
        str,
        typer.Option(
            help="paired comparisons: 'harness' (each model's harnesses against its Inspect run, as the study "
            "pairs them) or 'all' (every pair of configurations, across models too)"
        ),
    ] = "harness",
    suite: SuiteOption = None,
) -> None:
    """Tables, figures, report.md and a self-contained report.html from run directories."""
    _use_suite(suite)
    if pairs not in PAIR_MODES:
        raise fail(f"--pairs: unknown {pairs!r}; choose from {list(PAIR_MODES)}")
    paths = write_report(run_dirs, out, episode, pairs)
    console.print(f"wrote {paths['markdown']} and {paths['html']}")


def write_report(
    run_dirs: list[Path], out: Path, episodes: list[str] | None = None, pairs: str = "harness"
) -> dict[str, Path]:
    from .analysis.command import report
    from .analysis.runs import ReportError

    def warn(message: str) -> None:
        err.print(f"[yellow]warning:[/] {escape(message)}")

    try:
        return report(run_dirs, out, episodes, on_warning=warn, pairs=pairs)
    except ReportError as exc:
        raise fail(str(exc)) from None


@app.command()
def audit(
    sample: Annotated[int | None, typer.Option(min=1, help="audit a seeded sample of N cases (default: all)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    out: Annotated[Path | None, typer.Option(help="also write the report (Markdown, or JSON with --json)")] = None,
    conditions: Annotated[
        str, typer.Option(help="also audit these variants of every case that takes them, e.g. withheld,contradicted")
    ] = "",
    suite: SuiteOption = None,
) -> None:
    """Mutation audit of the evaluator: false acceptances and rejections per operator and protocol."""
    _use_suite(suite)
    from .audit import audit_command

    variants = [c for c in _split(conditions) or [] if c != "original"]
    unknown = set(variants) - set(CONDITIONS)
    if unknown:
        raise fail(f"--conditions: unknown {sorted(unknown)}; available: {list(CONDITIONS)}")
    raise typer.Exit(audit_command(sample, as_json, out, variants))


@app.command()
def mcp(
    case_id: Annotated[str, typer.Option("--case", help="the case to serve")],
    out: Annotated[Path, typer.Option(help="directory for trajectory.json")],
    condition: Annotated[str, typer.Option(help="condition of the case")] = "original",
    http: Annotated[
        int | None, typer.Option(min=0, max=65535, help="serve over streamable HTTP on 127.0.0.1:PORT (0: any)")
    ] = None,
    suite: SuiteOption = None,
) -> None:
    """Serve one episode over MCP on stdio or HTTP (for CLI agents); records OUT/trajectory.json."""
    _use_suite(suite)
    from .harness.mcp_server import serve

    try:
        serve(case_id, condition, out, http)
    except UnknownCase as exc:
        raise fail(str(exc.args[0])) from None
    except OSError as exc:  # OUT is a file, cannot be created, or trajectory.json cannot be written
        raise fail(f"--out {out}: {_os_reason(out, exc)}") from None


@app.command("serve-agent")
def serve_agent(
    agent: Annotated[str, typer.Argument(help=f"scripted agent: {', '.join(AGENTS)}")],
    port: Annotated[int, typer.Option(min=0, max=65535, help="port on 127.0.0.1 (0: any free port)")] = 0,
    latency: Annotated[float, typer.Option(min=0, help="seconds before each answer")] = 0.0,
    jitter: Annotated[float, typer.Option(min=0, help="± uniform jitter on the latency, seconds")] = 0.0,
    fail_first: Annotated[
        int, typer.Option("--fail", min=0, help="answer the first N requests of every episode with an error")
    ] = 0,
    fail_status: Annotated[int, typer.Option(min=400, max=599, help="HTTP status of those errors")] = 500,
    seed: Annotated[int, typer.Option(help="seed of the latency jitter")] = 1,
    max_seconds: Annotated[float, typer.Option(min=0, help="stop after this many seconds")] = 3600.0,
    idle_exit: Annotated[float, typer.Option(min=0, help="stop after this many seconds without a request")] = 600.0,
    stats: Annotated[Path | None, typer.Option(help="write the server's statistics (JSON) here on exit")] = None,
    suite: SuiteOption = None,
) -> None:
    """Serve a scripted agent as an OpenAI-compatible chat-completions endpoint on 127.0.0.1 (offline)."""
    _use_suite(suite)
    import asyncio

    from .harness.agent_server import ServerConfig, serve

    try:
        get_agent(agent)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from None
    config = ServerConfig(agent, latency, jitter, seed, fail_first, fail_status, max_seconds, idle_exit)

    def ready(bound: int) -> None:
        print(f"serving scripted agent {agent!r} at http://127.0.0.1:{bound}/v1", flush=True)

    try:
        result = asyncio.run(serve(config, port, stats, ready))
    except OSError as exc:
        raise fail(f"--port {port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        return
    err.print(f"stopped ({result.stop_reason}) after {result.completions} completions")


@app.command()
def schema(
    out: Annotated[Path, typer.Option(help="directory for the *.schema.json files")] = Path("docs/schema"),
) -> None:
    """Export the JSON Schemas of cases, trajectories, verdicts and episode records."""
    from .schema import write_schemas

    try:
        written = write_schemas(out)
    except OSError as exc:
        raise fail(f"--out {out}: {_os_reason(out, exc)}") from None
    for path in written:
        console.print(f"wrote {path}")


def _os_reason(directory: Path, exc: OSError) -> str:
    """Why a directory option cannot be used, in words (a file in the way is the common case)."""
    if directory.exists() and not directory.is_dir():
        return "exists and is not a directory"
    return str(exc.strerror or exc)


def main() -> None:  # pragma: no cover - console entry point
    try:
        app()
    except (CaseFileError, StoreError) as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        raise SystemExit(2) from None


__all__ = ["Job", "app", "main"]
