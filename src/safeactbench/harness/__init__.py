"""Harnesses that run agents on SafeActBench episodes: Inspect AI and MCP."""
