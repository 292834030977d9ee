"""The parts of `safeactbench serve-agent` (the server itself is `harness.agent_server`):
`episodes` (which episode a request belongs to), `turn` (the agent's answer, whatever the wire
format), `chat` and `responses` (the two OpenAI APIs), `messages` (Anthropic) and `gemini`
(Google), each plain JSON or streamed. `COUNT_TOKENS`: the token-count routes and their estimates,
answered alike by the model route."""

from .gemini import count_tokens as _gemini_count_tokens
from .messages import count_tokens as _messages_count_tokens

COUNT_TOKENS = {"/messages/count_tokens": _messages_count_tokens, ":countTokens": _gemini_count_tokens}
