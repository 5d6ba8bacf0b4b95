"""Telling people that handoffs wait for a decision: Apprise URLs checked and sent to
(``targets``), the words of one notification (``announcement``), and the announcer that
watches a store and sends them (``announcer``). UI-free: ``watch`` and ``serve`` run it
beside their app."""
