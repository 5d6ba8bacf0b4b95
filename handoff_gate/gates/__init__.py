"""handoff-gate's UI-free core, one subpackage per stage of a handoff's life.

``vocab`` (the words every stage shares) → ``contracts`` (which models exist and what they
look like) → ``inspect`` (bytes → parsed → validated → scanned → report) → ``view`` (a
report as rows a person reads) and ``run`` (submit, decide, audit, wait) over ``store``
(where a run's records live). ``trust`` holds keys, signatures and policy. See
docs/architecture.md.
"""

# One import identity: reached as ``gates`` (a checkout's top-level folder on sys.path),
# every class would exist twice and isinstance checks would fail between the two.
if __name__ != "handoff_gate.gates":
    raise ImportError(f"import handoff_gate.gates, not {__name__}")
