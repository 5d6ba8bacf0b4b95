"""The reviewer's look back: what was decided under a store, by whom, and how fast.

UI-free and read-only: every figure comes from ``standing`` (the one function every
front end asks for a handoff's state), so ``stats`` never disagrees with ``list``.
``facts`` is one handoff's part, ``figures`` the sums, ``gather`` the walk over a store;
``replay`` judges a policy's rules over the same history, and ``proposal`` makes a rule from
one approved call (the one writer here: it appends to a proposals file, never to a run).
"""
