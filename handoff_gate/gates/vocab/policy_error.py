"""The error a policy that cannot be used raises, below every module that reads one.

Its own module so that the ``[[auto]]`` tables (``gates.rules.auto``, a layer below
``gates.trust``) raise the same error as the rest of the policy file.
"""

from __future__ import annotations


class PolicyError(ValueError):
    """A policy that cannot be used; the message is one line naming file and field."""
