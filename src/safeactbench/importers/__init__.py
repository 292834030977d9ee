"""Importers: other benchmarks' published cases as SafeActBench suite directories, with a fidelity
report per case (`safeact_release`: the study's release; `release_files`, `release_cases`,
`release_evidence`: reading and translating it).

May import `suite`, `authoring` and `core`; never runs, harnesses, the analysis or the command line.
"""
