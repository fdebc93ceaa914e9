"""Owner tokens (issue 17, item 6): random, signed, and not guessable; the
owner id is a hash of the token."""

from __future__ import annotations

import stat

from ragcore import owner


def test_a_token_names_the_same_owner_every_time(tmp_path) -> None:
    secret = owner.server_secret(tmp_path)
    token = owner.issue_token(secret)
    assert owner.owner_of(token, secret) == owner.owner_of(token, owner.server_secret(tmp_path))
    assert owner.owner_of(token, secret).startswith("browser:")
    assert token not in owner.owner_of(token, secret)


def test_tokens_are_random_and_long(tmp_path) -> None:
    secret = owner.server_secret(tmp_path)
    tokens = {owner.issue_token(secret) for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t.split(".")[0]) >= 43 for t in tokens)  # 32 random bytes


def test_made_up_or_altered_tokens_own_nothing(tmp_path) -> None:
    secret = owner.server_secret(tmp_path)
    token = owner.issue_token(secret)
    nonce, sig = token.split(".")
    altered = nonce[:-1] + ("B" if nonce.endswith("A") else "A")  # always a different nonce
    for forged in [None, "", "admin", nonce, f"{nonce}.{'0' * 32}", f"{altered}.{sig}", token + "."]:
        assert owner.owner_of(forged, secret) is None
    assert owner.owner_of(token, b"another server's secret") is None


def test_the_server_secret_is_private_and_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("RAGCORE_OWNER_SECRET", raising=False)
    first = owner.server_secret(tmp_path)
    assert owner.server_secret(tmp_path) == first and len(first) == 32
    assert stat.S_IMODE((tmp_path / owner.SECRET_FILE).stat().st_mode) == 0o600
    monkeypatch.setenv("RAGCORE_OWNER_SECRET", "configured")
    assert owner.server_secret(tmp_path) == b"configured"
