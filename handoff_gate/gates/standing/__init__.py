"""The standing stage: what a handoff is now, read back from its run without trusting it
(modules: docs/architecture.md)."""
