"""The engine every verdict depends on: the case model (`model`, `values`), a world per episode
(`world`) with its evidence ledger (`ledger`), the episode agents call (`episode`), the evaluator
(`evaluator`), what an agent may see and is told (`public`, `prompts`), findings as text
(`render`) and reference scripts (`script`).

Imports nothing else of the project: every other layer is built on it.
"""
