"""The audit stage: the run's history and whether it holds together.

Every stage appends to the hash-chained log (``log``), so this folder is the lowest stage;
``decision_record`` is here because ``verify`` and ``dating`` read decision records back
against the log, and every stage above reads them the same untrusting way.
"""
