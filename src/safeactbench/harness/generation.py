"""Generation settings: one set of `run` flags that reaches the model on every path.

`--temperature`, `--top-p`, `--max-tokens`, `--seed`, `--reasoning-effort` and `--tool-choice`
change what the model is asked, so they are part of the run's configuration (`run.json` →
`config.generation`, shown in the report). `--call-timeout` (seconds per model call) changes only
how requests are made: it is recorded with the run's execution settings and may differ on resume.

The Inspect harnesses pass them as Inspect's `GenerateConfig` (each provider maps them onto its own
API); the lean harness puts them into every chat-completions request body.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .runtime import MAX_CONSECUTIVE_FAILURES

ToolChoice = Literal["auto", "required", "none"]
ReasoningEffort = Literal["minimal", "low", "medium", "high"]


class Generation(BaseModel):
    """What the model is asked to generate with; unset fields are the provider's defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1, description="output tokens per model call")
    seed: int | None = None
    reasoning_effort: ReasoningEffort | None = None
    tool_choice: ToolChoice | None = Field(default=None, description="None: the provider's default (auto)")

    def settings(self) -> dict[str, Any]:
        """The fields that are set, as recorded and shown."""
        return self.model_dump(exclude_none=True)

    def inspect_config(self) -> dict[str, Any]:
        """Keyword arguments for `inspect_ai.eval` (GenerateConfig fields); tool_choice goes to the solver."""
        return {k: v for k, v in self.settings().items() if k != "tool_choice"}

    def request_body(self) -> dict[str, Any]:
        """Members of a chat-completions request body."""
        return self.settings()


# --model-arg keys that are generation settings: they go through the flags, which reach every path
# (as a model argument Inspect would pass them to the provider's client constructor, which fails)
GENERATION_ARGS = {
    "temperature": "--temperature",
    "top_p": "--top-p",
    "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-tokens",
    "seed": "--seed",
    "reasoning_effort": "--reasoning-effort",
    "tool_choice": "--tool-choice",
}


def generation_arg_error(model_args: dict[str, Any]) -> str | None:
    """The message for a generation setting passed as `--model-arg`, or None."""
    for key in model_args:
        if key in GENERATION_ARGS:
            return (
                f"--model-arg {key}: a generation setting; pass {GENERATION_ARGS[key]} instead "
                "(it reaches the model on every harness and is recorded in run.json)"
            )
    return None


@dataclass(frozen=True)
class CallPolicy:
    """How model calls are made and when a run gives up (execution settings: not the configuration)."""

    timeout: float | None = None  # seconds per call attempt (None: the harness default)
    retries: int | None = None  # retries of a failing call (None: the harness default)
    max_failures: int = MAX_CONSECUTIVE_FAILURES  # episodes in a row failing at runtime that stop the run

    def recorded(self) -> dict[str, Any]:
        names = {"timeout": "call_timeout", "retries": "call_retries", "max_failures": "max_runtime_failures"}
        return {names[k]: v for k, v in asdict(self).items() if v is not None}
