"""A wrapper that encrypts every item before another session stores it.

::

    store = SQLAlchemySession.from_url("user-42", url=..., create_tables=True)
    session = EncryptedSession("user-42", store, encryption_key=os.environ["HISTORY_KEY"])

Each item is stored as an envelope ``{"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload":
TOKEN}``, where ``TOKEN`` is a Fernet token (AES-128-CBC with an HMAC-SHA256) of the item's
JSON. The Fernet key is derived per session with HKDF-SHA256 from the master key (salt: the
session id; info: ``agents.session-store.hkdf.v1``), exactly as the SDK does, so either
library reads what the other wrote. A token carries its creation time: items older than
``ttl`` seconds are skipped when read (they stay in the store until removed).

Everything else in the store is refused, never skipped: an item whose token does not
authenticate (another key, another session id, tampered) or an item that is not an envelope
(written to the store directly, in plain text) makes ``get_items``, ``pop_item`` and
``replace_after`` raise ``EncryptedHistoryError`` before anything is removed. A wrong key
therefore reads as an error, not as an empty history that ``pop_item`` would then empty, and
a row planted in the store is never history. ``clear_session`` needs no key.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import Any, Literal, TypedDict, TypeGuard

from ._optional import missing_extra

try:
    from cryptography.fernet import Fernet, InvalidToken
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    missing_extra("EncryptedSession", "cryptography", "encrypt", exc)

from ...runtime.errors import UserError
from ...runtime.items import TResponseInputItem
from ...runtime.sessions._common import check_limit, check_session_id, encode_items
from ...runtime.sessions.base import Session, SessionABC
from ...runtime.sessions.replace import check_keep, replace_after
from ...runtime.sessions.settings import SessionSettings, resolve_session_limit

__all__ = ["EncryptedEnvelope", "EncryptedHistoryError", "EncryptedSession"]

_HKDF_INFO = b"agents.session-store.hkdf.v1"

logger = logging.getLogger("jupyter_agents")


class EncryptedEnvelope(TypedDict):
    """What the underlying session stores for one item."""

    __enc__: Literal[1]
    v: int
    kid: str
    payload: str


def master_key_bytes(encryption_key: str) -> bytes:
    """The HKDF input: a Fernet key's 32 bytes, or any other string's UTF-8 bytes."""
    if not isinstance(encryption_key, str) or not encryption_key:
        raise UserError(
            "EncryptedSession needs an encryption_key: a Fernet key "
            "(Fernet.generate_key().decode()) or another secret string."
        )
    try:
        key = base64.urlsafe_b64decode(encryption_key)
    except (binascii.Error, ValueError):
        key = b""
    return key if len(key) == 32 else encryption_key.encode("utf-8")


def session_cipher(master: bytes, session_id: str) -> Fernet:
    """The Fernet cipher of one session: HKDF-SHA256(master, salt=session id)."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=session_id.encode(), info=_HKDF_INFO)
    return Fernet(base64.urlsafe_b64encode(hkdf.derive(master)))


def _is_envelope(item: object) -> TypeGuard[EncryptedEnvelope]:
    return (
        isinstance(item, dict) and item.get("__enc__") == 1 and {"payload", "kid", "v"} <= set(item)
    )


class EncryptedHistoryError(UserError):
    """The store holds items this session cannot vouch for: items that do not decrypt with its
    key and session id, or items that are not encrypted at all. Nothing was read or removed;
    the message says which and what to do."""

    def __init__(self, session_id: str, undecryptable: int, unencrypted: int, read: int) -> None:
        name = f"EncryptedSession({session_id!r})"
        if undecryptable:
            also = f" (and {unencrypted} are not encrypted)" if unencrypted else ""
            message = (
                f"{name}: {undecryptable} of the {read} stored items read do not decrypt with "
                f"this encryption_key and session_id{also}: another key or session id wrote "
                "them, or they were altered. Nothing was read or removed: give the key and "
                "session_id they were written with, or clear_session() to start over."
            )
        else:
            message = (
                f"{name}: {unencrypted} of the {read} stored items read are not encrypted "
                "(written to the store directly), so they are not history. Nothing was read "
                "or removed: delete them from the store or clear_session() to start over, and "
                "add trusted items through this session's add_items()."
            )
        super().__init__(message)
        self.session_id = session_id
        """The session's id."""
        self.undecryptable = undecryptable
        """Envelopes whose token does not authenticate with this key and session id."""
        self.unencrypted = unencrypted
        """Items that are not envelopes at all."""


_Refused = Literal["undecryptable", "unencrypted"]
"""Why a stored entry is refused: its token does not authenticate, or it is no envelope."""

_Opened = TResponseInputItem | _Refused | None
"""A stored entry opened: the item, why it is refused, or None (authentic but skipped: expired,
or not a JSON object)."""


class EncryptedSession(SessionABC):
    """Encrypts the items of ``underlying_session`` and skips those older than ``ttl``."""

    def __init__(
        self,
        session_id: str,
        underlying_session: Session,
        encryption_key: str,
        ttl: int = 600,
    ) -> None:
        """Wrap ``underlying_session``.

        Args:
            session_id: The conversation's id; it salts the key, so use the underlying
                session's id.
            underlying_session: The store (any session: SQLite, SQLAlchemy, Redis, ...).
            encryption_key: The master key: a Fernet key or another secret string.
            ttl: Seconds an item stays readable after it was written (checked against this
                machine's clock when read).

        Raises:
            UserError: An argument is invalid.
        """
        self.session_id = check_session_id(session_id)
        if not isinstance(underlying_session, Session):
            raise UserError(
                f"underlying_session must be a session, got {type(underlying_session).__name__}."
            )
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
            raise UserError(f"ttl must be a number of seconds > 0, got {ttl!r}.")
        self.underlying_session = underlying_session
        self.ttl = ttl
        self.cipher = session_cipher(master_key_bytes(encryption_key), self.session_id)
        self._kid = "hkdf-v1"
        self._version = 1

    def __getattr__(self, name: str) -> Any:
        # Whatever else the underlying session offers (close, engine, ping, ...).
        if name == "underlying_session":
            raise AttributeError(name)
        return getattr(self.underlying_session, name)

    @property
    def session_settings(self) -> SessionSettings | None:
        """The underlying session's settings."""
        settings = getattr(self.underlying_session, "session_settings", None)
        return settings if isinstance(settings, SessionSettings) else None

    @session_settings.setter
    def session_settings(self, value: SessionSettings | None) -> None:
        self.underlying_session.session_settings = value  # type: ignore[attr-defined]

    # -- the Session protocol -----------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the readable, unexpired items, oldest first; ``limit`` counts only those.

        Raises:
            EncryptedHistoryError: An item read does not decrypt or is not encrypted.
        """
        limit = resolve_session_limit(check_limit(limit), self.session_settings)
        if limit is None:
            return self._open_all(await self.underlying_session.get_items())
        window = limit
        while True:
            stored = await self.underlying_session.get_items(window)
            items = self._open_all(stored)
            if len(items) >= limit or len(stored) < window:
                return items[-limit:] if limit else []
            window *= 2

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Encrypt ``items`` and store them with one ``add_items`` call of the underlying
        session (so they are stored all or nothing if it does that)."""
        encoded = encode_items(items)
        envelopes: list[TResponseInputItem] = [self._seal(text) for text in encoded]
        if envelopes:
            await self.underlying_session.add_items(envelopes)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the most recent item; expired ones on top are removed and skipped.

        Raises:
            EncryptedHistoryError: The most recent entry does not decrypt or is not
                encrypted; it stays in the store.
        """
        while True:
            top = await self.underlying_session.get_items(1)
            self._open_each(top)  # refuse before removing anything
            stored = await self.underlying_session.pop_item()
            if stored is None:
                return None
            item = self._open(stored)
            if isinstance(item, str):  # another writer put it there since we looked
                await self.underlying_session.add_items([stored])
                self._open_each([stored])
            if isinstance(item, dict):
                return item

    async def replace_after(self, keep: int, items: list[TResponseInputItem]) -> None:
        """Keep the first ``keep`` readable items, encrypt ``items`` and store them in place of
        the rest: in one transaction when the underlying session can (see
        ``replace_after``).

        Raises:
            EncryptedHistoryError: A stored item does not decrypt or is not encrypted
                (nothing is changed).
        """
        keep = check_keep(keep)
        envelopes: list[TResponseInputItem] = [self._seal(text) for text in encode_items(items)]
        # The underlying store counts the entries this session skips (expired ones).
        opened = self._open_each(await self.underlying_session.get_items())
        under_keep, readable = 0, 0
        while readable < keep and under_keep < len(opened):
            readable += isinstance(opened[under_keep], dict)
            under_keep += 1
        await replace_after(self.underlying_session, under_keep, envelopes)

    async def clear_session(self) -> None:
        """Remove every item of the underlying session."""
        await self.underlying_session.clear_session()

    def __repr__(self) -> str:
        return f"EncryptedSession({self.session_id!r}, {self.underlying_session!r})"

    # -- envelopes ----------------------------------------------------------------------------

    def _seal(self, text: str) -> TResponseInputItem:
        token = self.cipher.encrypt(text.encode("utf-8")).decode("ascii")
        envelope: dict[str, Any] = {
            "__enc__": 1,
            "v": self._version,
            "kid": self._kid,
            "payload": token,
        }
        return envelope

    def _open(self, stored: TResponseInputItem) -> _Opened:
        if not _is_envelope(stored):
            return "unencrypted"
        payload = stored["payload"]
        token = payload.encode("utf-8") if isinstance(payload, str) else b""
        try:
            # The HMAC first, without the TTL: an expired token and a wrong key both fail
            # decrypt(ttl=...), and only the first may be skipped.
            self.cipher.extract_timestamp(token)
        except InvalidToken:
            return "undecryptable"
        try:
            item = json.loads(self.cipher.decrypt(token, ttl=self.ttl))
        except InvalidToken:  # authentic, and older than the TTL (or from a clock far ahead)
            return None
        except ValueError:
            item = None
        if not isinstance(item, dict):
            logger.warning(
                "EncryptedSession(%r): skipping an entry that is not an item", self.session_id
            )
            return None
        return item

    def _open_each(self, stored: list[TResponseInputItem]) -> list[_Opened]:
        """Each entry of ``stored`` opened; raises when any of them is refused."""
        opened = [self._open(entry) for entry in stored]
        refused = [entry for entry in opened if isinstance(entry, str)]
        if refused:
            raise EncryptedHistoryError(
                self.session_id,
                undecryptable=refused.count("undecryptable"),
                unencrypted=refused.count("unencrypted"),
                read=len(stored),
            )
        return opened

    def _open_all(self, stored: list[TResponseInputItem]) -> list[TResponseInputItem]:
        """The readable items of ``stored``; raises when any entry is refused."""
        return [entry for entry in self._open_each(stored) if isinstance(entry, dict)]
