"""handoff-gate's UI-free core, one subpackage per stage of a handoff's life (see
docs/architecture.md)."""

# One import identity: reached as ``gates`` (a checkout's top-level folder on sys.path),
# every class would exist twice and isinstance checks would fail between the two.
if __name__ != "handoff_gate.gates":
    raise ImportError(f"import handoff_gate.gates, not {__name__}")
