"""The deliver stage: blocking until a handoff settles, then handing over only what was
approved (modules: docs/architecture.md)."""
