"""Scripted agents as an Inspect model API: `inspect eval safeactbench/safeactbench --model safeactbench/eager`.

The real Inspect pipeline runs (prompt, tool schemas, the ReAct loop, the scorer); only the
"model" is a scripted agent. Each generate() call answers with the next call of the agent's cached
call sequence on the sample's case (`scripted_calls`), under the name the tool is offered as
(`tool_names`: a CLI agent driven through Inspect's agent bridge may offer `get_charge` as
`mcp__safeactbench__get_charge`). Every output carries `usage`, so nothing is fetched for token
counting and the pipeline runs offline.
"""

from __future__ import annotations

import copy
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.solver._task_state import sample_state
from inspect_ai.tool import ToolChoice, ToolInfo

from ..agents import get_agent
from .scripted_calls import DONE_TEXT, scripted_calls
from .tool_names import OfferedTool, offered_tool


@modelapi(name="safeactbench")
class ScriptedAgentAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        get_agent(model_name)  # fail early on an unknown agent name
        self.latency = float(model_args.get("latency", 0.0))  # seconds per call, to imitate a remote model
        # imitate an unreliable API: fail the first `fail` calls of every sample ("always": every call)
        fail = str(model_args.get("fail", "0"))
        self.fail_calls = 10**9 if fail == "always" else int(fail)
        self.failures: dict[str, int] = {}
        # imitate a harness that loses calls: send the first `misroute` tool calls of every sample to a
        # tool name nobody offered (the harness answers "unknown tool"; the episode never sees them)
        self.misroute = int(model_args.get("misroute", 0))

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.latency:
            await anyio.sleep(self.latency)
        state = sample_state()
        if state is None:
            raise RuntimeError("the safeactbench scripted model only runs inside a safeactbench sample")
        meta = state.metadata
        failed = self.failures.get(str(state.sample_id), 0)
        if failed < self.fail_calls:
            self.failures[str(state.sample_id)] = failed + 1
            raise ConnectionError(f"simulated API failure {failed + 1} for sample {state.sample_id}")
        calls = scripted_calls(
            self.model_name,
            str(meta["case_id"]),
            str(meta.get("condition", "original")),
            int(meta.get("repetition", 0)),
        )
        made = sum(len(m.tool_calls or []) for m in input if isinstance(m, ChatMessageAssistant))
        usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        if made >= len(calls):
            output = ModelOutput.from_content(model=self.model_name, content=DONE_TEXT)
        else:
            tool, arguments = calls[made][0], copy.deepcopy(calls[made][1])  # the cached script stays intact
            name = offered_tool(tool, (OfferedTool(t.name) for t in tools)).name
            output = ModelOutput.for_tool_call(
                model=self.model_name,
                tool_name=f"mcp__elsewhere__{name}" if made < self.misroute else name,
                tool_arguments=arguments if isinstance(arguments, dict) else {"raw": arguments},
                tool_call_id=f"call_{made}",
            )
        output.usage = usage
        return output
