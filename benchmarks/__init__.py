"""SafeActBench performance benchmarks (issue 8): `python -m benchmarks` writes docs/performance.md.

Run on demand, not part of the test suite (tests/test_benchmarks_smoke.py runs each part at a tiny
size so it does not rot). Parts: evaluator throughput, episode overhead, end-to-end run with peak
RSS, the Inspect path vs the in-process loop, the CLI harnesses' own cost, concurrency efficiency against a local mock
OpenAI-compatible server, the paired bootstrap, and prompt tokens per episode (offline tokenizer).
"""

from __future__ import annotations

PARTS = ("evaluator", "episode", "e2e", "inspect", "cli", "concurrency", "stats", "prompts")

__all__ = ["PARTS"]
