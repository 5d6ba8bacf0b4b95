"""The audit stage: the run's history and whether it holds together.

Every stage appends to the log, so this folder is the lowest stage; ``decision_record``
is here because ``verify`` reads records back against the log.
"""
