"""Telling people that handoffs wait for a decision (Apprise); UI-free, so ``watch`` and
``serve`` run it beside their app."""
