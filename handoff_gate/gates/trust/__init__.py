"""Who may decide: SSH signatures, allowed signers, the policy and the bytes a signature
covers. Without these, anyone who can write a run folder (the gated agent included) can
approve.
"""
