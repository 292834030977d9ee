"""`serve-agent` as CLI agents reach it: streamed chat completions, the Responses API (Codex), the
Anthropic Messages API (Claude Code), the Gemini API (Gemini CLI), episode base URLs, prompts
wrapped in a CLI's own, tools offered under prefixed or namespaced names.

Real HTTP on loopback against `safeactbench serve-agent reference` in its own process (or `serve` in
a thread), with the official SDKs (`openai`, `anthropic`, `google-genai`) as the clients. The test
plays the client side: it offers the episode's tools under a CLI's names, executes every call it was
offered on an `Episode` and answers a call to a tool it never offered as a CLI would (an error the
episode never sees). The trajectory must be the in-process reference agent's, and score 1.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import ChatMessageTool, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolInfo

from safeactbench.agents import get_agent
from safeactbench.core.episode import Episode
from safeactbench.core.evaluator import evaluate
from safeactbench.core.model import Case
from safeactbench.core.prompts import system_prompt, user_prompt
from safeactbench.core.public import public_view
from safeactbench.core.trajectory import Trajectory
from safeactbench.runs.runner import Job, play_scripted
from safeactbench.suite.catalog import get_case
from safeactbench.suite.data import load_suite
from served import serve_agent

PREFIX = "mcp__safeactbench__"  # how Claude Code and Qwen Code name an MCP server's tools
NAMESPACE = "mcp__safeactbench"  # the Responses API namespace Codex puts them in
UNKNOWN = {"error": "tool not found"}  # what a CLI answers for a tool it never offered
CLI_SYSTEM = "You are Qwen Code, an interactive CLI agent. Use the tools you are given."


def first_case(protocol: str) -> Case:
    return next(c for c in load_suite() if c.protocol.value == protocol)


def reference(case: Case, condition: str = "original") -> Trajectory:
    return play_scripted(Job(case, condition, 0), get_agent("reference")).trajectory


def assert_reference(case: Case, episode: Episode, condition: str = "original") -> None:
    trajectory = episode.trajectory()
    assert trajectory.steps, "the episode saw no call"
    assert trajectory.model_dump() == reference(case, condition).model_dump()
    assert evaluate(case, trajectory).score == 1


def execute(episode: Episode, offered: set[str], name: str, arguments: str) -> str:
    """A CLI's tool execution: only offered tools reach the episode, under our name."""
    if name not in offered:
        return json.dumps(UNKNOWN)
    tool = name.removeprefix(PREFIX)
    return json.dumps(episode.call(tool, json.loads(arguments)), ensure_ascii=False)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_agent() as url:
        yield url


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=30)


def register(url: str, case_id: str, condition: str, repetition: int = 0) -> dict[str, Any]:
    body = json.dumps({"case": case_id, "condition": condition, "repetition": repetition}).encode()
    request = urllib.request.Request(url.removesuffix("/v1") + "/ep", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


# --- chat completions ---------------------------------------------------------------------------


def chat_tools(case: Case) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": PREFIX + t["name"], "parameters": t["parameters"]}}
        for t in public_view(case).tools
    ]


def streamed_chat(api: openai.OpenAI, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One streamed completion, checked chunk by chunk and put together as the SDK user would."""
    chunks = list(
        api.chat.completions.create(
            model="reference",
            messages=messages,
            tools=tools,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    *choices, usage = chunks
    assert usage.choices == [] and usage.usage is not None and usage.usage.total_tokens > 0
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    assert choices[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in choices][:-1] == [None] * (len(choices) - 1)
    finish = choices[-1].choices[0].finish_reason
    content = "".join(c.choices[0].delta.content or "" for c in choices)
    calls: dict[int, dict[str, Any]] = {}
    for c in choices:
        for delta in c.choices[0].delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": delta.id, "type": delta.type, "name": "", "arguments": ""})
            assert delta.function is not None
            call["name"] += delta.function.name or ""
            call["arguments"] += delta.function.arguments or ""
    assert len(calls) <= 1 and finish == ("tool_calls" if calls else "stop")
    if calls:
        assert calls[0]["id"] and calls[0]["type"] == "function" and calls[0]["name"]
    return {"content": content, "calls": list(calls.values()), "chunks": len(choices)}


def play_chat(api: openai.OpenAI, case: Case, messages: list[dict[str, Any]]) -> Episode:
    episode, tools = Episode(case), chat_tools(case)
    offered = {t["function"]["name"] for t in tools}
    chunks = []
    while not episode.done:
        reply = streamed_chat(api, messages, tools)
        chunks.append(reply["chunks"])
        if not reply["calls"]:
            break
        [call] = reply["calls"]
        name, arguments = call["name"], call["arguments"]
        function = {"name": name, "arguments": arguments}
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call["id"], "type": "function", "function": function}],
            }
        )
        content = execute(episode, offered, name, arguments)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    assert max(chunks) > 3  # longer arguments come in several deltas
    return episode


def prompts(case: Case) -> list[dict[str, Any]]:
    view = public_view(case)
    return [{"role": "system", "content": system_prompt(view)}, {"role": "user", "content": user_prompt(view)}]


def test_streamed_chat_plays_a_case_with_prefixed_tool_names(base_url: str) -> None:
    case = first_case("V2")
    api = client(base_url)
    messages = prompts(case)
    episode = play_chat(api, case, messages)
    assert_reference(case, episode)
    assert all(m["tool_calls"][0]["function"]["name"].startswith(PREFIX) for m in messages if m.get("tool_calls"))
    closing = streamed_chat(api, messages, chat_tools(case))  # the script is exhausted: a text reply
    assert closing["content"] and not closing["calls"]


# --- the Responses API --------------------------------------------------------------------------


def namespace_tools(case: Case) -> list[dict[str, Any]]:
    members = [{"type": "function", "name": t["name"], "parameters": t["parameters"]} for t in public_view(case).tools]
    shell = {"type": "function", "name": "exec_command", "parameters": {"type": "object", "properties": {}}}
    return [shell, {"type": "namespace", "name": NAMESPACE, "description": "MCP tools", "tools": members}]


def streamed_response(api: openai.OpenAI, **request: Any) -> Any:
    events = list(api.responses.create(model="reference", stream=True, **request))
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-2:] == ["response.output_item.done", "response.completed"]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    item = events[-2].item
    if item.type == "function_call":
        deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
        [done] = [e for e in events if e.type == "response.function_call_arguments.done"]
        assert deltas and "".join(deltas) == done.arguments == item.arguments
    else:
        deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
        [done] = [e for e in events if e.type == "response.output_text.done"]
        assert "".join(deltas) == done.text == item.content[0].text
    completed = events[-1].response
    assert completed.status == "completed" and completed.usage.total_tokens > 0
    assert [o.model_dump() for o in completed.output] == [item.model_dump()]
    return completed


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
def test_responses_api_plays_a_case_with_namespaced_tools(base_url: str, stream: bool) -> None:
    case = first_case("V2")
    api, episode, tools = client(base_url), Episode(case), namespace_tools(case)
    view = public_view(case)
    items: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "input_text", "text": user_prompt(view)}]}]
    request: dict[str, Any] = {"instructions": system_prompt(view), "tools": tools, "store": False}
    while True:
        response = (
            streamed_response(api, input=items, **request)
            if stream
            else api.responses.create(model="reference", input=items, **request)
        )
        [item] = response.output
        if item.type != "function_call":
            assert item.type == "message" and response.output_text
            break
        assert item.namespace == NAMESPACE and item.call_id and not item.name.startswith(NAMESPACE)
        observation = json.dumps(episode.call(item.name, json.loads(item.arguments)), ensure_ascii=False)
        items.append(item.model_dump(exclude_none=True, exclude={"status"}))
        items.append({"type": "function_call_output", "call_id": item.call_id, "output": observation})
    assert_reference(case, episode)


def test_responses_api_refuses_what_it_cannot_answer(base_url: str) -> None:
    api = client(base_url)
    case = first_case("V2")
    text = user_prompt(public_view(case))
    with pytest.raises(openai.BadRequestError, match="previous_response_id"):
        api.responses.create(model="reference", input=text, previous_response_id="resp_1")
    with pytest.raises(openai.BadRequestError, match="X-SafeActBench-Episode"):
        api.responses.create(model="reference", input="Summarise this repository.")


# --- the Anthropic Messages API (Claude Code) and the Gemini API (Gemini CLI) ---------------------

CLAUDE_PREFIX = "mcp__backoffice__"  # how Claude Code names the MCP server's tools
GEMINI_PREFIX = "mcp_backoffice_"  # how Gemini CLI names them


def _observation(episode: Episode, prefix: str, name: str, arguments: dict[str, Any]) -> str:
    return json.dumps(episode.call(name.removeprefix(prefix), arguments), ensure_ascii=False)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
def test_anthropic_messages_api_plays_a_case_as_claude_code_offers_it(base_url: str, stream: bool) -> None:
    import anthropic

    case = first_case("V2")
    api = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="unused", max_retries=0, timeout=30)
    view, episode = public_view(case), Episode(case)
    tools = [{"name": CLAUDE_PREFIX + t["name"], "input_schema": t["parameters"]} for t in view.tools]
    messages: list[dict[str, Any]] = [{"role": "user", "content": user_prompt(view)}]
    request: dict[str, Any] = {"model": "reference", "max_tokens": 1024, "system": system_prompt(view), "tools": tools}
    while True:
        if stream:
            with api.messages.stream(messages=messages, **request) as events:
                kinds = [event.type for event in events]
                message = events.get_final_message()
            assert kinds[0] == "message_start" and kinds[-1] == "message_stop", kinds
        else:
            message = api.messages.create(messages=messages, **request)
        assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
        [block] = message.content
        if block.type != "tool_use":
            assert block.type == "text" and block.text and message.stop_reason == "end_turn"
            break
        assert message.stop_reason == "tool_use" and block.name.startswith(CLAUDE_PREFIX)
        messages.append({"role": "assistant", "content": [block.model_dump()]})
        text = _observation(episode, CLAUDE_PREFIX, block.name, block.input)
        result = {"type": "tool_result", "tool_use_id": block.id, "content": [{"type": "text", "text": text}]}
        messages.append({"role": "user", "content": [result]})
    assert_reference(case, episode)
    assert api.messages.count_tokens(model="reference", messages=messages).input_tokens > 0


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
def test_gemini_api_plays_a_case_as_gemini_cli_offers_it(base_url: str, stream: bool) -> None:
    from google import genai
    from google.genai import types

    case = first_case("V2")
    api = genai.Client(api_key="unused", http_options=types.HttpOptions(base_url=base_url.removesuffix("/v1")))
    view, episode = public_view(case), Episode(case)
    declarations = [
        types.FunctionDeclaration(name=GEMINI_PREFIX + t["name"], parameters_json_schema=t["parameters"])
        for t in view.tools
    ]
    config = types.GenerateContentConfig(
        system_instruction=system_prompt(view),
        tools=[types.Tool(function_declarations=declarations)],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents: list[types.Content] = [types.Content(role="user", parts=[types.Part(text=user_prompt(view))])]
    while True:
        if stream:
            chunks = list(api.models.generate_content_stream(model="reference", contents=contents, config=config))
            parts = [part for c in chunks for part in (c.candidates[0].content.parts or [])]  # type: ignore[index,union-attr]
            usage = chunks[-1].usage_metadata
        else:
            response = api.models.generate_content(model="reference", contents=contents, config=config)
            parts, usage = response.candidates[0].content.parts or [], response.usage_metadata  # type: ignore[index,union-attr]
        assert usage is not None and usage.total_token_count
        calls = [part.function_call for part in parts if part.function_call is not None]
        if not calls:
            assert "".join(part.text or "" for part in parts)
            break
        [call] = calls
        assert call.name and call.name.startswith(GEMINI_PREFIX)
        contents.append(types.Content(role="model", parts=[types.Part(function_call=call)]))
        output = _observation(episode, GEMINI_PREFIX, call.name, dict(call.args or {}))
        answered = types.FunctionResponse(name=call.name, response={"output": output})
        contents.append(types.Content(role="user", parts=[types.Part(function_response=answered)]))
    assert_reference(case, episode)
    assert api.models.count_tokens(model="reference", contents=contents).total_tokens


# --- episode base URLs --------------------------------------------------------------------------


def test_episode_base_url_names_the_episode(base_url: str) -> None:
    case = first_case("V1")
    withheld = get_case(case.id, "withheld")
    assert prompts(withheld) == prompts(case)  # the prompts cannot tell the two apart
    assert reference(withheld, "withheld").model_dump() != reference(case).model_dump()
    registered = register(base_url, case.id, "withheld")
    assert case.id not in registered["base_url"] and "withheld" not in registered["base_url"]
    assert register(base_url, case.id, "withheld")["token"] == registered["token"]  # one token per episode
    assert register(base_url, case.id, "original")["token"] != registered["token"]
    episode = play_chat(client(registered["base_url"]), withheld, prompts(withheld))
    assert_reference(withheld, episode, "withheld")
    # the Responses API under the same base URL, with prompts no case has
    api = client(registered["base_url"])
    response = api.responses.create(model="reference", input="hello", tools=namespace_tools(case))
    assert response.output[0].type == "function_call"
    with pytest.raises(openai.NotFoundError, match="episode token"):
        client(base_url.removesuffix("/v1") + "/ep/not-a-token/v1").chat.completions.create(
            model="reference",
            messages=prompts(case),
        )
    with pytest.raises(urllib.error.HTTPError) as refused:
        register(base_url, "NOPE", "original")
    assert refused.value.code == 400


def test_episode_tokens_in_process() -> None:
    """`serve(..., tokens=...)` on port 0 in a thread: tokens registered by a function call."""
    from safeactbench.harness.agent_server import EpisodeTokens, ServerConfig, serve

    case = first_case("V1")
    tokens = EpisodeTokens()
    token = tokens.register(case.id, "withheld")
    ready = threading.Event()
    port: list[int] = []

    def on_ready(bound: int) -> None:
        port.append(bound)
        ready.set()

    config = ServerConfig("reference", idle_exit=60)
    thread = threading.Thread(target=lambda: asyncio.run(serve(config, 0, None, on_ready, tokens)), daemon=True)
    thread.start()
    assert ready.wait(30)
    root = f"http://127.0.0.1:{port[0]}"
    try:
        withheld = get_case(case.id, "withheld")
        episode = play_chat(client(f"{root}/ep/{token}/v1"), withheld, prompts(withheld))
        assert_reference(withheld, episode, "withheld")
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{root}/shutdown", data=b"", method="POST"), timeout=10)
        thread.join(10)


# --- prompts wrapped by a CLI -------------------------------------------------------------------


def test_case_is_found_in_a_wrapped_prompt(base_url: str) -> None:
    case = first_case("V3")
    view = public_view(case)
    joined = f"<context>cwd: /tmp/x</context>\n\n{system_prompt(view)}\n\n{user_prompt(view)}\n\nWork autonomously."
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": CLI_SYSTEM},
        {"role": "user", "content": [{"type": "text", "text": joined}]},
    ]
    assert_reference(case, play_chat(client(base_url), case, messages))
    # Codex: its own instructions and developer messages first, ours inside the user message
    api = client(base_url)
    codex_input = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": CLI_SYSTEM}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context/>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": joined}]},
    ]
    response = api.responses.create(
        model="reference",
        instructions=CLI_SYSTEM,
        input=codex_input,
        tools=namespace_tools(case),
    )
    first = reference(case).steps[0]
    assert (response.output[0].name, json.loads(response.output[0].arguments)) == (first.tool, first.arguments)


# --- the scripted model in Inspect --------------------------------------------------------------


def test_offered_tool_name_mapping() -> None:
    from safeactbench.harness.tool_names import OfferedTool, offered_tool

    def pick(tool: str, *offered: str | tuple[str, str]) -> tuple[str, str | None]:
        tools = [OfferedTool(o[1], o[0]) if isinstance(o, tuple) else OfferedTool(o) for o in offered]
        chosen = offered_tool(tool, tools)
        return chosen.name, chosen.namespace

    assert pick("get_charge", "mcp__s__get_charge", "get_charge") == ("get_charge", None)  # exact name first
    for name in ("mcp__safeactbench__get_charge", "safeactbench.get_charge", "s/get_charge", "s:get_charge"):
        assert pick("get_charge", "mcp__s__list_charges", name) == (name, None)
    assert pick("get_charge", "exec_command", ("mcp__s", "get_charge")) == ("get_charge", "mcp__s")
    assert pick("charge", "mcp__s__get_charge") == ("charge", None)  # `_` is no separator
    assert pick("get_charge", "a__get_charge", "b__get_charge") == ("get_charge", None)  # ambiguous: as is
    assert pick("get_charge", "a__get_charge", "a__get_charge") == ("a__get_charge", None)  # listed twice
    assert pick("get_charge") == ("get_charge", None)


@solver
def prefixed_tools_loop() -> Solver:
    """A CLI behind Inspect's agent bridge, in miniature: the episode's tools offered as
    `mcp__safeactbench__NAME`; a call to any other name never reaches the episode."""
    from safeactbench.harness.inspect_task import TRAJECTORY_KEY, episode_case, tool_infos

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = episode_case(state)
        episode = Episode(case)
        tools = [
            ToolInfo(name=PREFIX + t.name, description=t.description, parameters=t.parameters)
            for t in tool_infos(public_view(case).tools)
        ]
        offered = {t.name for t in tools}
        while not episode.done:
            output = await get_model().generate(state.messages, tools=tools)
            state.messages.append(output.message)
            if not output.message.tool_calls:
                break
            for call in output.message.tool_calls:
                content = execute(episode, offered, call.function, json.dumps(call.arguments))
                state.messages.append(ChatMessageTool(content=content, tool_call_id=call.id, function=call.function))
        state.store.set(TRAJECTORY_KEY, episode.trajectory().model_dump(mode="json"))
        return state

    return solve


def test_scripted_model_calls_prefixed_tool_names(tmp_path: Any) -> None:
    from safeactbench.harness.inspect_task import evidence_scorer, make_sample

    case = first_case("V2")
    task = Task(dataset=MemoryDataset([make_sample(case)]), solver=prefixed_tools_loop(), scorer=evidence_scorer())
    [log] = inspect_eval(task, model="safeactbench/reference", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    [sample] = log.samples
    assert sample.scores is not None and sample.scores["evidence_scorer"].value == 1
    trajectory = Trajectory.model_validate(sample.store["safeactbench:trajectory"])
    assert trajectory.model_dump() == reference(case).model_dump()


@pytest.mark.parametrize(("idle_exit", "max_seconds", "reason"), [(0.3, 600.0, "idle"), (0.0, 0.5, "max_seconds")])
def test_the_server_stops_when_idle_unless_told_never(idle_exit: float, max_seconds: float, reason: str) -> None:
    """`--idle-exit S` stops a server nobody talks to; `--idle-exit 0` never does (there only the
    `--max-seconds` limit can stop it)."""
    from safeactbench.harness.agent_server import ServerConfig, serve

    config = ServerConfig("reference", idle_exit=idle_exit, max_seconds=max_seconds)
    result = asyncio.run(serve(config, 0, None, lambda _: None))
    assert result.stop_reason == reason
