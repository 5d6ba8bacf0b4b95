"""Adapters that put the gate inside agent frameworks, each behind an optional extra
(docs/integration.md names them and their extras).

Importing this package loads no framework; each module imports its own.
"""
