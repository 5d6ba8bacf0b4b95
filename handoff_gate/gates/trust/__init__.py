"""Who may decide: SSH signatures, allowed signers, the policy and the bytes a signature covers.

Without these, anyone who can write a run folder (the gated agent included) can approve.
A decision or handoff is trusted only when it carries an OpenSSH ed25519 signature
(``ssh-keygen -Y sign``, namespace ``handoff-gate``) by a principal the policy lists.
Modules: ``sshsig`` (the signature format), ``signers`` (the ``allowed_signers`` file),
``policy`` (who approves which phase) and ``statement`` (the canonical signed bytes).
"""
