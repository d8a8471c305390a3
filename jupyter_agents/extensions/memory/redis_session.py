"""A session stored in Redis (``redis.asyncio``).

Many kernels and processes may share one server and even one session::

    session = RedisSession.from_url("user-42", url="redis://localhost:6379/0")
    await Runner.run(agent, "Hello", session=session)

The keys are the SDK's: ``{key_prefix}:{id}`` (a hash: session_id, created_at, updated_at),
``{key_prefix}:{id}:messages`` (a list of JSON items, oldest first) and
``{key_prefix}:{id}:counter``, where ``{id}`` is the session id with ``%`` and ``:`` escaped
(``%25``, ``%3A``): an id never holds the separator, so no id can name another id's keys
(the SDK puts the id in as it is, and ``"alice:messages"`` names alice's list there). Ids
without those two characters, the usual ones, have exactly the SDK's keys.

``add_items`` is one Lua script, which Redis runs whole and alone: the batch is pushed in one
piece after every earlier batch, its metadata set and its TTL renewed together, and a client
that dies before sending the script stores nothing.
``replace_after`` (a notebook re-running a cell) trims the list and runs that script in one
``MULTI``/``EXEC`` transaction, retried when another client changed the list meanwhile.
"""

from __future__ import annotations

from typing import Any

from ._optional import missing_extra

try:
    import redis.asyncio as aioredis
    from redis.asyncio import Redis
    from redis.exceptions import WatchError
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    missing_extra("RedisSession", "redis", "redis", exc)

from ...runtime.errors import UserError
from ...runtime.items import TResponseInputItem
from ...runtime.sessions._common import check_session_id, decode_item, encode_items
from ...runtime.sessions.replace import check_keep, cut_position
from ...runtime.sessions.settings import (
    SessionSettings,
    coerce_session_settings,
)
from ._common import PerLoop, ServerHistory, settle

__all__ = ["RedisSession"]

_ADD_ITEMS = """
local meta, messages, counter = KEYS[1], KEYS[2], KEYS[3]
local kind = redis.call('TYPE', meta)['ok']
if kind ~= 'none' and kind ~= 'hash' then
  return redis.error_reply('WRONGTYPE ' .. meta .. ' is a ' .. kind .. ', not a session hash')
end
kind = redis.call('TYPE', messages)['ok']
if kind ~= 'none' and kind ~= 'list' then
  return redis.error_reply('WRONGTYPE ' .. messages .. ' is a ' .. kind .. ', not a list')
end
local now = redis.call('TIME')[1]
for first = 3, #ARGV, 1000 do
  redis.call('RPUSH', messages, unpack(ARGV, first, math.min(first + 999, #ARGV)))
end
redis.call('HSET', meta, 'session_id', ARGV[1], 'updated_at', now)
redis.call('HSETNX', meta, 'created_at', now)
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('PEXPIRE', meta, ttl)
  redis.call('PEXPIRE', messages, ttl)
  redis.call('PEXPIRE', counter, ttl)
end
return redis.call('LLEN', messages)
"""
"""Checks both keys' types before writing anything, then appends in chunks (Lua's ``unpack``
takes a few thousand values at most). Redis runs a script without interleaving others."""


def _key_id(session_id: str) -> str:
    """The session id as it appears in its keys: ``%`` and ``:`` escaped (``%25``, ``%3A``),
    so the id holds no separator and two ids never give one key; any other id is unchanged."""
    return session_id.replace("%", "%25").replace(":", "%3A")


def _check_ttl(ttl: object) -> int | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
        raise UserError(f"ttl must be None (keep forever) or seconds > 0, got {ttl!r}.")
    return ttl


class RedisSession(ServerHistory):
    """A session in Redis; the ``ttl`` (seconds since the last write) expires idle sessions."""

    def __init__(
        self,
        session_id: str,
        *,
        redis_client: Redis,
        key_prefix: str = "agents:session",
        ttl: int | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        """Use ``redis_client`` (this session does not close it).

        Args:
            session_id: The conversation's id; a non-empty string.
            redis_client: A ``redis.asyncio.Redis`` client.
            key_prefix: Prefix of this session's keys, e.g. one per application.
            ttl: Seconds the session's keys live after its latest write (``None``: forever).
            session_settings: This session's defaults, e.g. ``SessionSettings(limit=100)``.

        Raises:
            UserError: An argument is invalid.
        """
        self.session_id = check_session_id(session_id)
        if not isinstance(key_prefix, str) or not key_prefix:
            raise UserError(f"key_prefix must be a non-empty string, got {key_prefix!r}.")
        self.session_settings: SessionSettings | None = coerce_session_settings(session_settings)
        self._ttl = _check_ttl(ttl)
        self._key_prefix = key_prefix
        self._session_key = f"{key_prefix}:{_key_id(self.session_id)}"
        self._messages_key = f"{self._session_key}:messages"
        self._counter_key = f"{self._session_key}:counter"
        self._clients = PerLoop(redis_client, None)
        self._owns_client = False
        self._closed = False
        self._add_script = redis_client.register_script(_ADD_ITEMS)

    @classmethod
    def from_url(
        cls,
        session_id: str,
        *,
        url: str,
        redis_kwargs: dict[str, Any] | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> RedisSession:
        """A session on a new client for ``url``, closed by ``close``.

        Args:
            session_id: The conversation's id.
            url: ``redis://[:password@]host:port/db``, ``rediss://`` (TLS) or
                ``unix:///path/redis.sock``.
            redis_kwargs: Passed to ``redis.asyncio.from_url``.
            session_settings: This session's defaults.
            **kwargs: The constructor's other arguments (``key_prefix``, ``ttl``).
        """
        options = dict(redis_kwargs or {})

        def connect() -> Redis:
            try:
                return aioredis.from_url(url, **options)
            except ValueError as exc:
                raise UserError(
                    f"RedisSession.from_url: {exc}. Give a URL such as redis://host:6379/0."
                ) from None

        session = cls(
            session_id, redis_client=connect(), session_settings=session_settings, **kwargs
        )
        # A client's connections belong to the event loop that opened them.
        session._clients = PerLoop(session._clients.first, connect)
        session._owns_client = True
        return session

    async def close(self) -> None:
        """Close the clients ``from_url`` made (later calls raise ``UserError``);
        a no-op for a client passed in. Clients of other event loops are dropped: their
        connections cannot be closed from this loop."""
        if not self._owns_client:
            return
        self._closed = True
        here, _elsewhere = self._clients.take_all()
        for client in here:
            await client.aclose()

    async def ping(self) -> bool:
        """Whether the server answers."""
        try:
            return bool(await self._client().ping())
        except Exception:
            return False

    # -- the Session protocol -----------------------------------------------------------------

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` in one piece after every stored item, all or nothing; renew the
        TTL."""
        encoded = encode_items(items)
        client = self._client()
        if encoded:
            ttl_ms = self._ttl * 1000 if self._ttl else 0
            keys = [self._session_key, self._messages_key, self._counter_key]
            args: list[str | int] = [self.session_id, ttl_ms, *encoded]
            await settle(self._add_script(keys=keys, args=args, client=client))

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item (``None`` when the session is empty)."""
        client = self._client()
        while True:
            data = await settle(client.rpop(self._messages_key))
            if data is None:
                return None
            item = decode_item(data)
            if item is not None:  # an unreadable entry is dropped and the next one popped
                return item

    async def replace_after(self, keep: int, items: list[TResponseInputItem]) -> None:
        """Keep the first ``keep`` items and store ``items`` in place of the rest, in one
        transaction (``keep`` counts readable items, as ``get_items`` returns them)."""
        keep = check_keep(keep)
        encoded = encode_items(items)
        await settle(self._replace(keep, encoded))

    async def clear_session(self) -> None:
        """Delete this session's keys."""
        keys = (self._session_key, self._messages_key, self._counter_key)
        await settle(self._client().delete(*keys))

    def __repr__(self) -> str:
        return f"RedisSession({self.session_id!r}, key_prefix={self._key_prefix!r})"

    # -- helpers ------------------------------------------------------------------------------

    def _client(self) -> Redis:
        if self._closed:
            raise UserError(f"{self!r} is closed; create a new RedisSession to use it again.")
        return self._clients.get()

    async def _replace(self, keep: int, encoded: list[str]) -> None:
        keys = [self._session_key, self._messages_key, self._counter_key]
        args: list[str | int] = [self.session_id, self._ttl * 1000 if self._ttl else 0, *encoded]
        async with self._client().pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(self._messages_key)
                    cut = cut_position(await pipe.lrange(self._messages_key, 0, -1), keep)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if cut == 0:
                        pipe.delete(self._messages_key)
                    else:
                        pipe.ltrim(self._messages_key, 0, cut - 1)
                    await self._add_script(keys=keys, args=args, client=pipe)
                    await pipe.execute()
                    return
                except WatchError:  # another client wrote to the list first: read it again
                    continue

    async def _all(self) -> list[object]:
        return list(await self._client().lrange(self._messages_key, 0, -1))

    async def _latest(self, count: int) -> list[object]:
        return list(await self._client().lrange(self._messages_key, -count, -1))
