"""Metrics, statistics, figures and reports over run directories."""
