"""handoff-gate's UI-free core, one subpackage per stage of a handoff's life.

``vocab`` (the words every stage shares) → ``contracts`` (which models exist and what they
look like) → ``inspect`` (bytes → parsed → validated → scanned → report) → ``view`` (a
report as rows a person reads) and ``run`` (submit, decide, audit, wait) over ``store``
(where a run's records live). ``trust`` holds keys, signatures and policy. See
docs/architecture.md.
"""
