"""The demo: ``runner`` (``handoff-gate demo``), its simulated pipeline (``simulator``, run
as ``python -m handoff_gate.demo.simulator`` in a child process, which loads no Textual)
and the sample runs it copies (``sample_runs/``, package data).
"""
