"""The reviewer's look back: what was decided under a store, by whom, and how fast.

Read-only but for ``proposal``, which appends to a proposals file, never to a run.
Every figure comes from ``standing``, so ``stats`` never disagrees with ``list``.
"""
