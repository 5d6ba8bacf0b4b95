"""The decide stage: a reviewer's approve or reject, or the pipeline's withdrawal, made
durable (modules: docs/architecture.md)."""
