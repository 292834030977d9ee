"""Inspect AI integration: the `safeactbench` task, its ReAct loop solver and the evidence scorer.

    inspect eval safeactbench/safeactbench --model openai/gpt-4o -T protocol=V1 -T domain=healthcare

Each sample plays a fresh `Episode`. The solver is a plain ReAct loop that sends *every* tool call
— unknown tools and unparseable arguments included — to the episode, so Inspect runs record
exactly what MCP and scripted runs record. The scorer is `evaluate`; its verdict goes into the
score's metadata and, when the task was given a `run_dir`, into that run store at once.
"""

from __future__ import annotations

import contextlib
import json
import operator
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import Solver, TaskState, solver
from inspect_ai.tool import ToolInfo, ToolParams
from pydantic import PrivateAttr

from ..core.episode import Episode
from ..core.evaluator import evaluate
from ..core.model import Case
from ..core.prompts import MAX_IDLE_TURNS, NUDGE, PROMPT_VERSION, system_prompt, tool_description, user_prompt
from ..core.public import public_view
from ..core.render import render_findings
from ..core.trajectory import Trajectory
from ..runs.runconfig import RunConfig, active_suite
from ..runs.runner import episode_seed, run_metadata
from ..runs.store import EpisodeRecord, RunStore
from ..suite.catalog import get_case, played, use_suite
from ..suite.data import load_suite
from .inspect_sample import (
    STARTED_KEY,
    TRAJECTORY_KEY,
    TRANSCRIPT_KEY,
    USAGE_KEY,
    episode_case,
    record_start,
    supervised,
)
from .runtime import MAX_CONSECUTIVE_FAILURES, RuntimeFailure
from .tool_lists import ToolListCache
from .transcript import model_turn


def sample_id(case_id: str, condition: str, repetition: int) -> str:
    return f"{case_id}|{condition}|{repetition}"


def make_sample(case: Case, condition: str = "original", repetition: int = 0) -> Sample:
    view = public_view(case)
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=system_prompt(view)),
        ChatMessageUser(content=user_prompt(view)),
    ]
    return Sample(
        id=sample_id(case.id, condition, repetition),
        input=messages,
        metadata={
            "case_id": case.id,
            "condition": condition,
            "repetition": repetition,
            "protocol": case.protocol.value,
            "domain": case.domain,
            "family": case.family,
        },
    )


def tool_infos(view_tools: list[dict[str, Any]]) -> list[ToolInfo]:
    return [
        ToolInfo(
            name=t["name"],
            description=tool_description(t),
            parameters=ToolParams.model_validate(t["parameters"]),
        )
        for t in view_tools
    ]


class SharedToolInfo(ToolInfo):
    """A tool definition shared by every sample that plays the same tool list.

    Inspect deep-copies the tools it is given on every `generate()` (so a provider can never alter
    the caller's tools); pydantic's deepcopy of the nested parameter models of 20-40 tools is one of
    the largest items in a profile of the Inspect path. The deep copy of this class is a plain
    `ToolInfo` parsed from JSON dumped once: equal to the deepcopy (fields set included), as
    independent of the original, about five times faster. If a field was reassigned after
    `prepare()`, the ordinary deepcopy is used."""

    _json: str = PrivateAttr(default="")
    _fields: tuple[Any, ...] = PrivateAttr(default=())

    def prepare(self) -> SharedToolInfo:
        self._json = self.model_dump_json(exclude_unset=True)
        self._fields = tuple(self.__dict__.values())
        return self

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> ToolInfo:  # type: ignore[override]
        current = tuple(self.__dict__.values())
        if self._json and len(current) == len(self._fields) and all(map(operator.is_, current, self._fields)):
            return ToolInfo.model_validate_json(self._json)
        return super().__deepcopy__(memo)


def _shared_tool_infos(case: Case) -> list[SharedToolInfo]:
    return [
        SharedToolInfo(name=t.name, description=t.description, parameters=t.parameters).prepare()
        for t in tool_infos(public_view(case).tools)
    ]


_EPISODE_TOOLS = ToolListCache(_shared_tool_infos)


def episode_tools(case: Case) -> list[ToolInfo]:
    """`tool_infos(public_view(case).tools)`, built once per tool list as `SharedToolInfo`s."""
    return list(_EPISODE_TOOLS.get(case))


@solver
def episode_loop(tool_choice: str | None = None, max_failures: int = MAX_CONSECUTIVE_FAILURES) -> Solver:
    """The shared ReAct loop: generate, execute every tool call on the episode, until it ends.

    A model call that fails after Inspect's own retries, or a context that overflows (Inspect turns
    that into an empty reply with stop reason `model_length`), fails the sample with a
    `RuntimeFailure` whose message is the missing reason — never an agent that stopped. Once
    `max_failures` episodes in a row failed so, no new episode starts (`RunStopped`)."""
    overflowed: dict[str, str] = {}  # sample id -> reason: a retried sample does not replay a sure overflow

    async def play_once(state: TaskState) -> None:
        if str(state.sample_id) in overflowed:
            raise RuntimeFailure(overflowed[str(state.sample_id)])
        try:
            await play(state)
        except RuntimeFailure as exc:
            if exc.message.startswith("context_overflow"):
                overflowed[str(state.sample_id)] = exc.message
            raise

    async def play(state: TaskState) -> None:
        case = episode_case(state)
        episode = Episode(case)
        tools = episode_tools(case)
        names = [t.name for t in tools]
        record_start(state)
        model = get_model()
        usage: dict[str, int] = {}
        transcript: list[dict[str, Any]] = []
        idle = 0
        choice: Any = tool_choice if tool_choice in ("auto", "none") else "any" if tool_choice == "required" else None
        while not episode.done:
            output = await model.generate(state.messages, tools=tools, tool_choice=choice)
            state.output = output
            turn_usage: dict[str, int] = {}
            if output.usage is not None:
                for key in ("input_tokens", "output_tokens", "total_tokens"):
                    turn_usage[key] = int(getattr(output.usage, key) or 0)
                    usage[key] = usage.get(key, 0) + turn_usage[key]
            calls = output.message.tool_calls or []
            if output.stop_reason == "model_length" and not calls:  # Inspect's stand-in for the API's error
                raise RuntimeFailure(f"context_overflow: {output.message.text[:300] or 'the model context is full'}")
            sent = [(c.function, json.dumps(c.arguments, ensure_ascii=False)) for c in calls]
            turn = model_turn(output.message.text, sent, turn_usage, output.stop_reason, names)
            transcript.append(turn.model_dump(exclude_defaults=True))
            state.store.set(TRANSCRIPT_KEY, list(transcript))  # kept in the log even if the sample fails
            state.store.set(USAGE_KEY, usage)
            state.messages.append(output.message)
            if not calls:
                idle += 1
                if idle >= MAX_IDLE_TURNS:
                    episode.stop("agent_stopped")
                    break
                state.messages.append(ChatMessageUser(content=NUDGE))
                continue
            idle = 0
            for call in calls:  # calls after the episode's end get EPISODE_FINISHED and are not recorded
                raw: dict[str, Any] | str = (
                    f"<unparseable arguments: {call.parse_error}>" if call.parse_error else call.arguments
                )
                observation = episode.call(call.function, raw)
                state.messages.append(
                    ChatMessageTool(
                        content=json.dumps(observation, ensure_ascii=False),
                        tool_call_id=call.id,
                        function=call.function,
                    )
                )
        state.store.set(TRAJECTORY_KEY, episode.trajectory().model_dump(mode="json"))
        state.completed = True

    return supervised(play_once, max_failures)


@scorer(metrics=[accuracy(), stderr()])
def evidence_scorer(
    run_dir: str | None = None,
    harness: str = "inspect",
    conditions: list[str] | None = None,
    filters: dict[str, str | None] | None = None,
    planned: int = 0,
    label: str | None = None,
) -> Scorer:
    """Exact case success by replay; appends the episode to `run_dir`'s store when given, recorded
    under `label` (default: the sample's model). A run directory that `safeactbench run` did not
    create (plain `inspect eval -T run_dir=...`) is created at the first score, pinned to that
    sample's model and the task's conditions and filters."""
    store = RunStore(Path(run_dir)) if run_dir else None

    def pin(record: EpisodeRecord) -> RunConfig:
        return RunConfig(
            agent=record.agent,
            harness=harness,  # type: ignore[arg-type]
            model=record.model,
            conditions=conditions or ["original"],
            filters=filters or {},
            prompt_version=PROMPT_VERSION,
            suite=active_suite(),
        )

    async def score(state: TaskState, target: Target) -> Score:
        case = episode_case(state)
        trajectory = Trajectory.model_validate(state.store.get(TRAJECTORY_KEY) or {"steps": []})
        verdict = evaluate(case, trajectory)
        started_at, clock = state.store.get(STARTED_KEY) or ["", time.perf_counter()]
        condition = str(state.metadata.get("condition", "original"))
        repetition = int(state.metadata.get("repetition", 0))
        if store is not None:
            record = EpisodeRecord.for_case(
                case,
                agent=label or str(state.model),
                harness=harness,
                model=str(state.model),
                repetition=repetition,
                seed=episode_seed(case.id, condition, repetition),
                trajectory=trajectory,
                verdict=verdict,
                started_at=started_at,
                duration_s=time.perf_counter() - clock,
                usage=dict(state.store.get(USAGE_KEY) or {}),
                transcript=state.store.get(TRANSCRIPT_KEY),
            )
            # the append (with its fsync) runs in a worker thread so it never blocks the event loop
            # the other samples run on; not abandoned on cancel, so a record is always written whole
            await anyio.to_thread.run_sync(_append, store, record, pin, planned)
        return Score(
            value=verdict.score,
            answer=verdict.outcome.value,
            explanation=render_findings(verdict),
            metadata={"verdict": verdict.model_dump(mode="json"), "prompt_version": PROMPT_VERSION},
        )

    return score


_APPEND_LOCK = threading.Lock()


def _append(store: RunStore, record: EpisodeRecord, pin: Callable[[EpisodeRecord], RunConfig], planned: int) -> None:
    with _APPEND_LOCK:  # one writer at a time: lines of concurrent samples never interleave
        if not store.meta_path.exists():
            store.open(pin(record), run_metadata(), planned=planned, resume=True)
        store.append(record)


def _split(value: str | list[str] | None) -> list[str] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else value.split(",")
    return [v.strip() for v in items if v.strip()]


@task
def safeactbench(
    protocol: str | None = None,
    domain: str | None = None,
    condition: str = "original",
    cases: str | None = None,
    repeat: int = 1,
    run_dir: str | None = None,
    samples: str | None = None,
    harness: str = "react",
    sandbox: bool = True,
    time_limit: int | None = None,
    tool_choice: str | None = None,
    max_runtime_failures: int = MAX_CONSECUTIVE_FAILURES,
    suite: str | None = None,
    sandbox_bind: str | list[str] | None = None,
    sandbox_path: str | list[str] | None = None,
    label: str | None = None,
) -> Task:
    """SafeActBench. Filters are comma-separated. `samples` names a file of sample ids
    (`CASE|condition|repetition`, one per line) to play instead of the filters: `safeactbench run`
    passes the planned episodes not yet stored (resume). `harness` is `react` (the shared ReAct
    loop) or a family CLI (`codex-cli`, `claude-code`, `gemini-cli`, `opencode`, `qwen-code`), which
    runs in the bwrap sandbox unless `sandbox=false`; `time_limit` caps an episode's seconds. `tool_choice`
    (auto, required, none) is sent with every model call of the ReAct loop; after
    `max_runtime_failures` episodes in a row failed at runtime no new one starts (0: never stop).
    `suite` is a suite directory (default: $SAFEACTBENCH_SUITE, else the packaged suite).
    `sandbox_bind` (host paths shown read-only) and `sandbox_path` (directories put first on PATH)
    reach a family CLI's sandbox; by default the CLI is found on this machine's PATH and shown so.
    `run_dir` also holds a family CLI's episode work directories and logs (`work/TOKEN/`); its
    episodes are recorded under `label` (`run --label`; default: the model's name)."""
    from .family_cli import DEFAULT_TIMEOUT_S, FAMILY_CLIS, FamilySettings, cli_episode

    if suite is not None:
        use_suite(Path(suite))
    if harness != "react" and harness not in FAMILY_CLIS:
        raise ValueError(f"harness: unknown {harness!r}; choose from {['react', *FAMILY_CLIS]}")
    protocols, domains, ids, conditions = _split(protocol), _split(domain), _split(cases), _split(condition)
    if samples is not None:
        chosen = [_sample_from_id(line) for line in Path(samples).read_text(encoding="utf-8").split()]
    else:
        selected = [
            c
            for c in load_suite()
            if (not protocols or c.protocol.value in protocols)
            and (not domains or c.domain in domains)
            and (not ids or c.id in ids)
        ]
        chosen = [
            make_sample(c, c.condition, rep)
            for rep in range(int(repeat))
            for c in played(selected, conditions or ["original"])
        ]
    filters = {"protocol": protocol, "domain": domain, "cases": cases}
    harness_name = "inspect" if harness == "react" else harness
    if harness == "react":
        play = episode_loop(tool_choice, int(max_runtime_failures))
    else:
        family = FamilySettings(harness, bool(sandbox), run_dir, float(time_limit or DEFAULT_TIMEOUT_S),
                                *_cli_mounts(harness, sandbox_bind, sandbox_path))  # fmt: skip
        play = cli_episode(family, int(max_runtime_failures))
    return Task(
        dataset=MemoryDataset(chosen, name="safeactbench"),
        solver=play,
        scorer=evidence_scorer(run_dir, harness_name, conditions or ["original"], filters, len(chosen), label),
        time_limit=time_limit,
        metadata={"prompt_version": PROMPT_VERSION, "harness": harness_name, "sandbox": sandbox},
    )


def _cli_mounts(
    harness: str, binds: str | list[str] | None, path: str | list[str] | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the family CLI's sandbox shows and puts on PATH. `run` passes both (it found the CLI);
    `inspect eval` directly passes at most `sandbox_bind`: the CLI is found on this machine's PATH
    (`cli_install`) and shown with it."""
    shown, first = tuple(_split(binds) or ()), tuple(_split(path) or ())
    if path is None:
        from .cli_install import CLIUnusable, cli_mounts
        from .family_cli import executable

        with contextlib.suppress(CLIUnusable):  # not installed here: the episode's log says so
            mounts = cli_mounts(executable(harness))
            return (*mounts.binds, *shown), mounts.path
    return shown, first


def _sample_from_id(text: str) -> Sample:
    case_id, _, rest = text.partition("|")
    condition, _, repetition = rest.rpartition("|")
    return make_sample(get_case(case_id, condition), condition, int(repetition))
