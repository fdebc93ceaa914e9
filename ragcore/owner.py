"""Who owns a browser's private uploads across reloads: a signed random token.

Under ``RAGCORE_ISOLATION=session`` a visitor's uploads live in a collection
owned by that visitor. The owner used to be a uuid in the Streamlit session,
so a reload started a new owner and the uploads were out of reach until they
expired. The owner is now a token the browser keeps (in the page's URL, as a
query parameter; a cookie when one is set): 32 random bytes, URL-safe, with
an HMAC-SHA256 signature under a server secret, so a token cannot be made up
or guessed, and the stored owner id is a hash of the token, never the token.
The token is never written to a log. A signed-in user (``st.user``) owns by
account instead, as before.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from . import config
from .permissions import FILE_MODE

TOKEN_BYTES = 32
SECRET_FILE = "owner.key"
QUERY_PARAMETER = "owner"


def server_secret(home: Path) -> bytes:
    """``RAGCORE_OWNER_SECRET``, else a random key kept in ``home`` (0600),
    made on first use; the same for every session of this library."""
    configured = config.get("RAGCORE_OWNER_SECRET") or ""
    if configured:
        return configured.encode("utf-8")
    path = home / SECRET_FILE
    home.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as fh:
        fh.write(secrets.token_bytes(32))
    return path.read_bytes()


def _signature(nonce: str, secret: bytes) -> str:
    return hmac.new(secret, nonce.encode("ascii"), hashlib.sha256).hexdigest()[:32]


def issue_token(secret: bytes) -> str:
    """A new owner token: random nonce and its signature."""
    nonce = secrets.token_urlsafe(TOKEN_BYTES)
    return f"{nonce}.{_signature(nonce, secret)}"


def owner_of(token: str | None, secret: bytes) -> str | None:
    """The owner id a token stands for, or None when it is missing, malformed
    or not signed with ``secret``."""
    if not token or token.count(".") != 1 or len(token) > 200:
        return None
    nonce, signature = token.split(".")
    if len(nonce) < TOKEN_BYTES or not hmac.compare_digest(signature, _signature(nonce, secret)):
        return None
    return "browser:" + hashlib.sha256(token.encode("ascii", "replace")).hexdigest()[:32]
