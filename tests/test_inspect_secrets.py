"""Every secret kind is found on its own, with no other text around to help the quick look."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_contracts import REGISTRY

from handoff_gate.gates.findings import Code
from handoff_gate.gates.inspection import inspect
from handoff_gate.gates.secretscan import kinds_in, spans

ALONE = {
    "private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA",
    "AWS access key": "AKIAIOSFODNN7EXAMPLE",
    "GitHub token": "ghp_" + "a1B2" * 9,
    "Slack token": "xoxb-1234567890-abcdefghij",
    "Stripe live key": "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
}
MARKERS = ["PRIVATE KEY", "AKIA", "ASIA", "ghs_", "github_pat_", "xox", "k_live_", "eyJ"]


@pytest.mark.parametrize("kind", sorted(ALONE))
def test_each_kind_alone_is_a_secret(kind: str) -> None:
    data = json.dumps({"title": ALONE[kind]}).encode()
    report = inspect(data, "lenient/v1", REGISTRY)
    secrets = [f for f in report.findings if f.code is Code.SECRET]
    assert [f.path for f in secrets] == ["title"]
    assert kind in secrets[0].message


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(MARKERS) | st.text(max_size=6), max_size=6))
def test_quick_look_names_every_kind_whose_marker_is_there(parts: list[str]) -> None:
    text = "".join(parts)
    markers = {
        "private key": "PRIVATE KEY",
        "AWS access key": "A[KS]IA",
        "GitHub token": "g(?:h[pousr]_|ithub_pat_)",
        "Slack token": "xox",
        "Stripe live key": "k_live_",
        "JWT": "eyJ",
    }
    expected = {kind for kind, marker in markers.items() if re.search(marker, text)}
    assert expected <= kinds_in(text)
    assert {kind for _, _, kind in spans(text)} <= kinds_in(text)
