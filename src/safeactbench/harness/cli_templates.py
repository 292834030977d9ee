"""Tested templates for CLI agents: `run --harness-cmd @codex` (and `@claude-code`, `@gemini-cli`,
`@opencode`, `@qwen-code`); the family-CLI harnesses run the same templates (`family_cli`).

Each runs one episode headless, inside the sandbox (`harness/command.py`): the CLI's model is
`--model` at `--base-url` (a hosted API, a local server, `safeactbench serve-agent` offline, or the
family harness's model route), the episode's tools are the MCP server at {mcp_url}, the prompt is
{prompt_file}. Configuration is written per episode inside the sandbox's $HOME or passed in the
environment; nothing the CLI does reaches beyond the sandbox (updates, telemetry, model lists are
off). Each is exercised by tests/test_command_harness.py and tests/test_family_cli.py with the
real CLI. The key is the CLI's usual variable when set (`$OPENAI_API_KEY`, `$ANTHROPIC_API_KEY`,
`$GEMINI_API_KEY`), else a placeholder (a local endpoint needs none).

- `@codex` — Codex CLI, `codex exec` on the Responses API; Codex's own approvals and sandbox are
  off (the episode's sandbox is ours), web search off, the MCP server is required so Codex waits.
- `@claude-code` — Claude Code, `claude -p` on the Anthropic Messages API at {api_root}; only the
  episode's MCP server, its tools allowed; tool search off (else the MCP tools hide behind
  `ToolSearch`), blocking MCP start-up, auto-memory and non-essential traffic off.
- `@gemini-cli` — Gemini CLI, `gemini --yolo -p` on the Gemini API at {api_root}; settings with
  the MCP server, the API-key auth type and usage statistics off; the workspace is trusted
  (`GEMINI_CLI_TRUST_WORKSPACE`, else MCP servers are skipped).
- `@opencode` — OpenCode, `opencode run` with an OpenAI-compatible provider at {base_url} and the
  MCP server as `remote`, in `OPENCODE_CONFIG_CONTENT`; no model fetch, update, LSP download,
  default plugins or sharing; a fixed title (no title request to the model).
- `@qwen-code` — Qwen Code, `qwen -p --yolo` on chat completions; `alwaysLoadTools` puts the MCP
  tools in the model's tool list (by default Qwen hides them behind a tool-search tool).
"""

from __future__ import annotations

TEMPLATES: dict[str, str] = {
    "codex": (
        "codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -m {model}"
        " -c model_provider=bench -c model_providers.bench.name=bench -c model_providers.bench.base_url={base_url}"
        " -c model_providers.bench.wire_api=responses -c web_search=disabled"
        " ${OPENAI_API_KEY:+-c model_providers.bench.env_key=OPENAI_API_KEY}"
        " -c mcp_servers.backoffice.url={mcp_url} -c mcp_servers.backoffice.required=true"
        ' "$(cat {prompt_file})"'
    ),
    "qwen-code": (
        'mkdir -p "$HOME/.qwen"'
        ' && printf \'{"mcpServers": {"backoffice": {"httpUrl": "%s", "alwaysLoadTools": true}}}\''
        ' {mcp_url} > "$HOME/.qwen/settings.json"'
        " && OPENAI_BASE_URL={base_url} OPENAI_API_KEY=${OPENAI_API_KEY:-none}"
        ' qwen --yolo --auth-type openai -m {model} -p "$(cat {prompt_file})"'
    ),
    "claude-code": (
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 IS_SANDBOX=1"
        " ENABLE_TOOL_SEARCH=false MCP_CONNECTION_NONBLOCKING=false"
        " ANTHROPIC_BASE_URL={api_root} ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY:-none}"
        " claude -p --dangerously-skip-permissions --model {model}"
        " --mcp-config {mcp_config} --strict-mcp-config --allowed-tools 'mcp__backoffice__*' --"
        ' "$(cat {prompt_file})"'
    ),
    "gemini-cli": (
        'mkdir -p "$HOME/.gemini"'
        ' && printf \'{"privacy": {"usageStatisticsEnabled": false},'
        ' "security": {"auth": {"selectedType": "gemini-api-key"}},'
        ' "mcpServers": {"backoffice": {"httpUrl": "%s"}}}\' {mcp_url} > "$HOME/.gemini/settings.json"'
        " && GOOGLE_GEMINI_BASE_URL={api_root} GEMINI_API_KEY=${GEMINI_API_KEY:-none} GEMINI_CLI_TRUST_WORKSPACE=true"
        " gemini --yolo --model {model} --output-format text --allowed-mcp-server-names backoffice"
        ' -p "$(cat {prompt_file})"'
    ),
    "opencode": (
        "OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true OPENCODE_DISABLE_LSP_DOWNLOAD=true"
        " OPENCODE_DISABLE_DEFAULT_PLUGINS=true OPENCODE_DISABLE_SHARE=true"
        ' OPENCODE_CONFIG_CONTENT="$(printf \'{"provider": {"bench": {"npm": "@ai-sdk/openai-compatible",'
        ' "options": {"baseURL": "%s", "apiKey": "%s"}, "models": {"%s": {}}}},'
        ' "mcp": {"backoffice": {"type": "remote", "url": "%s", "enabled": true}}}\''
        ' {base_url} "${OPENAI_API_KEY:-none}" {model} {mcp_url})"'
        " opencode run --model bench/{model} --dangerously-skip-permissions --title=episode"
        ' "$(cat {prompt_file})"'
    ),
}
EXECUTABLES = {
    "codex": ("codex", "@openai/codex"),
    "qwen-code": ("qwen", "@qwen-code/qwen-code"),
    "claude-code": ("claude", "@anthropic-ai/claude-code"),
    "gemini-cli": ("gemini", "@google/gemini-cli"),
    "opencode": ("opencode", "opencode-ai"),
}


def expand(template: str) -> str:
    """`@name` is a template of TEMPLATES; anything else is a template as given."""
    if not template.startswith("@"):
        return template
    try:
        return TEMPLATES[template[1:]]
    except KeyError:
        raise ValueError(f"--harness-cmd {template}: no such template; choose from @{', @'.join(TEMPLATES)}") from None
