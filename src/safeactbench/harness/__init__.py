"""Harnesses: what puts an agent on SafeActBench episodes and stores each as an `EpisodeRecord` by
one outcome rule (`outcome`). The shared ReAct loop in Inspect AI (`inspect_task`, `inspect_run`),
the lean loop for OpenAI-compatible APIs (`lean`), CLI agents per episode (`command`) and the
family CLIs (`family_cli`, `model_route`, `streams`, `cli_templates`, `cli_install`) in a sandbox
and network namespace of their own (`bwrap_sandbox`, `episode_net`, `gateway`), the MCP server
(`mcp_server`) and scripted agents served as a model (`agent_server`, `serve_agent/`).

May import `runs`, `agents`, `suite` and `core`; never the analysis, the audit, the importers or
the command line.
"""
