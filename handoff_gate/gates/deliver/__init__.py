"""The deliver stage: blocking until a handoff settles, then handing over only what was approved.

``pickup`` is one look (decided or not, and what a wait returns now); ``waiting`` blocks
on the store's wake-ups; ``waiting_async`` and ``waiting_many`` step the same waiter from
a coroutine and over many handoffs.
"""
