"""The parts of `safeactbench serve-agent` (the server itself is `harness.agent_server`):
`episodes` (which episode a request belongs to), `turn` (the agent's answer, whatever the wire
format), `chat` and `responses` (the two OpenAI APIs, plain JSON and SSE streams)."""
