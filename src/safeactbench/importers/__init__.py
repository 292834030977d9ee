"""Importers: other benchmarks' published cases as SafeActBench suite directories."""
