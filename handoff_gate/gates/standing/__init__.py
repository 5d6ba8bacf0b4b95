"""The standing stage: what a handoff is now, read back from its run without trusting it.

``report_in_run`` inspects a handoff against what came before it (``baseline``);
``quorum`` settles its decision records under the policy (``phase_rule``,
``signed_check``) with any reviewer's ``edits``; ``ending`` reads the two ends without a
decision; ``standing`` and ``decision_problem`` give the one answer every front end shows.
"""
