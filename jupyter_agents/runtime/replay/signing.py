"""Whose recording is it: each recording a person's runtime makes is signed with a secret kept
in their Jupyter data folder, the way Jupyter signs the notebooks a person trusts.

A recording someone else made (in a notebook or a file they sent, or one of ours changed by
anyone) carries no valid signature: replay uses it as data (the model's replies, what tools
returned) and never for a decision (approvals, rejections, edited arguments, guardrail results).

The signature is an HMAC-SHA256 of the recording's canonical JSON (sorted keys, the signature
itself left out) under a 32-byte secret in ``<Jupyter data folder>/jupyter_agents/
recording_secret``, created on first use with mode 0600. Sandboxed commands cannot read it (the
sandbox hides the folder). ``JUPYTER_DATA_DIR`` moves it, as it moves Jupyter's own secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "SIGNATURE",
    "inserted_mark",
    "is_inserted_mark",
    "is_journal_mac",
    "is_signed",
    "journal_mac",
    "jupyter_data_dir",
    "secret_path",
    "sign",
]

SIGNATURE = "signed"
"""The recording's field that holds its signature (not a name the tracing redaction hides)."""

_PREFIX = "hmac-sha256:"

_cache: dict[str, bytes] = {}
"""The secret per file, read once per process."""


def jupyter_data_dir() -> Path:
    """Jupyter's data folder, found as ``jupyter_core`` finds it (without importing it)."""
    explicit = os.environ.get("JUPYTER_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Jupyter"
    if os.name == "nt":
        appdata = os.environ.get("APPDATA")
        return Path(appdata) / "jupyter" if appdata else home / ".jupyter" / "data"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / "jupyter"


def secret_path() -> Path:
    """Where this person's recording secret is kept."""
    return jupyter_data_dir() / "jupyter_agents" / "recording_secret"


def sign(recording: dict[str, Any]) -> None:
    """Sign ``recording`` in place, as made by this person."""
    recording.pop(SIGNATURE, None)
    recording[SIGNATURE] = _PREFIX + _digest(recording)


def is_signed(recording: dict[str, Any]) -> bool:
    """Whether ``recording`` carries this person's valid signature (made by their runtime and
    unchanged since)."""
    signature = recording.get(SIGNATURE)
    if not isinstance(signature, str) or not signature.startswith(_PREFIX):
        return False
    try:
        expected = _digest(recording)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(signature[len(_PREFIX) :], expected)


def inserted_mark(source: str) -> str:
    """The mark a cell this person's agent inserted carries (``jupyter_agents.inserted`` in its
    metadata): keyed with their secret over the cell's text, so it also says whether anyone
    changed the cell since. A notebook someone sent cannot make one."""
    text = "inserted-cell\0" + source
    return hmac.new(_secret(), text.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def is_inserted_mark(mark: object, source: str) -> bool:
    """Whether ``mark`` is this person's mark for a cell holding ``source``."""
    return isinstance(mark, str) and hmac.compare_digest(mark, inserted_mark(source))


def journal_mac(text: str) -> str:
    """The mark of one row of a run's journal (``runtime/durable``): keyed with the person's
    secret, so a journal someone else wrote, or changed, offers nothing to resume."""
    return hmac.new(_secret(), ("journal\0" + text).encode("utf-8"), hashlib.sha256).hexdigest()


def is_journal_mac(mark: object, text: str) -> bool:
    """Whether ``mark`` is this person's mark for journal row ``text``."""
    return isinstance(mark, str) and hmac.compare_digest(mark, journal_mac(text))


def _digest(recording: dict[str, Any]) -> str:
    body = {k: v for k, v in recording.items() if k != SIGNATURE}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hmac.new(_secret(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def _secret() -> bytes:
    path = secret_path()
    key = str(path)
    if key not in _cache:
        _cache[key] = _read_or_create(path)
    return _cache[key]


def _read_or_create(path: Path) -> bytes:
    """The secret in ``path``, made first when there is none: written whole to a private
    temporary file, then linked into place, so a process starting at the same time reads
    either nothing or the whole secret."""
    if path.exists():
        return _read(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".recording_secret-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: theirs is the one
    finally:
        os.unlink(temporary)
    return _read(path)


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "r", encoding="ascii") as f:
        value = f.read().strip()
    if len(value) < 32:
        raise OSError(f"The recording secret {path} is damaged: delete it to make a new one.")
    return value.encode("ascii")
