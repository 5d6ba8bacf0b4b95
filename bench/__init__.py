"""Benchmarks for handoff-gate: every figure is measured next to its baseline in the same run.

Run ``python -m bench`` (or ``make bench``); see docs/performance.md for what each one measures.
"""
