"""The decide stage: a reviewer's approve or reject, or the pipeline's withdrawal, made durable.

``decisions`` writes one record through the run's store (exclusive per principal),
``batch`` many at once, ``withdrawal`` the pipeline's taking back of an undecided handoff;
``reviewer`` is who a decision names by default.
"""
