"""The submit stage: a producer's exact bytes become a run's next handoff (modules:
docs/architecture.md)."""
