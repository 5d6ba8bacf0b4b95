"""Real ed25519 keys made once per session with ssh-keygen, in a temporary folder."""

from __future__ import annotations

import pytest
from trust_helpers import PASSPHRASE, Keys, make_key


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    folder = tmp_path_factory.mktemp("keys")
    return Keys(
        folder=folder,
        alice=make_key(folder / "alice"),
        bob=make_key(folder / "bob"),
        mallory=make_key(folder / "mallory"),
        locked=make_key(folder / "locked", PASSPHRASE),
    )
