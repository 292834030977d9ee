"""What `run` checks and builds before it writes anything: the run configuration, the model's arguments
and generation settings, the preflight request, the CLI agent, the sandbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ..agents import get_agent
from ..harness.generation import CallPolicy, Generation, generation_arg_error
from ..runs.runconfig import (
    CLI_HARNESSES,
    EXECUTION_ARGS,
    SECRET_ARGS,
    RunConfig,
    public_url,
    redact,
)

if TYPE_CHECKING:
    from ..harness.cli_install import SandboxCLI
    from ..harness.openai_api import Endpoint

from .common import console, fail

DEFAULT_CALL_RETRIES = 5


SANDBOX_INSTALL = (
    "install it with `apt-get install -y bubblewrap util-linux` (or pass --no-sandbox, which run.json records)"
)


def run_config_for(
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
        from ..harness.command import TemplateError, check_template

        try:
            check_template(command)
        except TemplateError as exc:
            raise fail(str(exc)) from None
        from ..harness.bwrap_sandbox import missing_tools  # imports Inspect AI: only where a sandbox is asked for

        if sandbox and missing_tools():
            raise fail(f"--harness-cmd: the sandbox needs {', '.join(missing_tools())}; {SANDBOX_INSTALL}")
        update: dict[str, Any] = {"agent": label or model or "command", "harness": "command", "command": command}
        update |= {"model": model, "sandbox": sandbox, "endpoint": None if base_url is None else public_url(base_url)}
        return base.model_copy(update=update)
    if model is not None and harness == "lean":
        endpoint = lean_endpoint(model, args)
        lean = {"model_args": endpoint.params, "endpoint": public_url(endpoint.base_url)}
        return base.model_copy(update={"agent": label or model, "harness": "lean", "model": model, **lean})
    if model is not None:
        check_inspect_model(model)
        model_url = args.get("base_url")
        update = {
            "model_args": {k: v for k, v in args.items() if k != "base_url" and k not in EXECUTION_ARGS},
            "endpoint": None if model_url is None else public_url(str(model_url)),
        }
        if harness in CLI_HARNESSES:
            update["sandbox"] = sandbox
        return base.model_copy(update={"agent": label or model, "harness": harness, "model": model, **update})
    try:
        return base.model_copy(update={"agent": get_agent(base.agent).name})
    except KeyError as exc:
        raise fail(f"--agent: {exc.args[0]}") from None


def prepare_cli_agent(executable: str, sandbox: bool, binds: tuple[str, ...], known: bool) -> SandboxCLI:
    """The run's CLI agent as its sandbox runs it (found wherever it is installed, its version read
    inside); fails early, saying what to install or pass, when it cannot run there."""
    from ..harness.bwrap_sandbox import missing_tools
    from ..harness.cli_install import CLIUnusable, prepare_cli

    missing = missing_tools() if sandbox else []
    if missing:
        raise fail(f"the sandbox needs {', '.join(missing)}; {SANDBOX_INSTALL}")
    try:
        return prepare_cli(executable, sandbox=sandbox, binds=binds, known=known)
    except CLIUnusable as exc:
        raise fail(str(exc)) from None


def check_reachable(option: str, url: str) -> None:
    """Fail in seconds, naming the option, when nothing listens at the URL's host and port."""
    from ..harness.episode_net import unreachable

    problem = unreachable(url)
    if problem:
        raise fail(f"{option} {public_url(url)}: {problem}; start the model server or fix the URL")


def check_inspect_model(model: str) -> None:
    """Fail early, with Inspect's own providers listed, on a model whose provider Inspect lacks."""
    from ..harness.inspect_run import inspect_providers

    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise fail(f"--model: expected PROVIDER/MODEL (e.g. openai/gpt-4o-mini), got {model!r}")
    providers = inspect_providers()
    if providers and provider not in providers:
        raise fail(f"--model: Inspect AI has no model provider {provider!r}; providers: {', '.join(sorted(providers))}")
    if provider == "safeactbench":  # a scripted agent served as a model: its name is checked here, not mid-run
        try:
            get_agent(name)
        except KeyError as exc:
            raise fail(f"--model {model}: {exc.args[0]}") from None


def generation_from(
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


def preflight_model(config: RunConfig, args: dict[str, Any], generation: Generation, policy: CallPolicy) -> None:
    """One test request to the model before anything is written (harness.preflight)."""
    from ..harness.preflight import PreflightError, preflight_inspect, preflight_lean

    assert config.model is not None
    console.print(f"preflight: one test request to {escape(config.model)} ...")
    try:
        if config.harness == "lean":
            preflight_lean(lean_endpoint(config.model, args, generation, policy))
        else:
            inspect_args = {k: v for k, v in args.items() if k not in EXECUTION_ARGS}
            retries = DEFAULT_CALL_RETRIES if policy.retries is None else policy.retries
            preflight_inspect(config.model, inspect_args, generation, policy.timeout, retries)
    except PreflightError as exc:
        raise fail(f"preflight: {redact(str(exc))}\n(nothing was written; --no-preflight skips this check)") from None


def lean_endpoint(
    model: str, args: dict[str, Any], generation: Generation | None = None, policy: CallPolicy | None = None
) -> Endpoint:
    from ..harness.openai_api import Endpoint

    policy = policy or CallPolicy()
    if policy.retries is not None:
        args = args | {"max_retries": policy.retries}
    body = (generation or Generation()).request_body()
    try:
        return Endpoint.from_model(model, args, generation=body, call_timeout=policy.timeout)
    except ValueError as exc:
        raise fail(str(exc)) from None


def parse_model_args(pairs: list[str] | None) -> dict[str, Any]:
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
