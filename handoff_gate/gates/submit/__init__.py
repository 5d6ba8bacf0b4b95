"""The submit stage: a producer's exact bytes become a run's next handoff.

``submit`` and ``tool_call`` write handoffs; ``stored_contracts`` keeps the JSON Schema
documents a handoff may name by digest; ``placement`` binds a handoff to its run and its
producer, which every later stage checks again when it reads the handoff back.
"""
