"""``EncryptedSession``: items encrypted at rest with the SDK's key derivation, expired items
skipped, foreign and plain ones an error, the underlying session's atomicity kept; the
optional-extra errors."""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

import jupyter_agents.extensions.memory as memory
from jupyter_agents import InMemorySession, SessionSettings, SQLiteSession, UserError
from jupyter_agents.extensions.memory import EncryptedSession
from jupyter_agents.extensions.memory.encrypt_session import EncryptedHistoryError
from tests.runtime.test_sessions import CONVERSATION

FERNET_KEY = Fernet.generate_key().decode()


class Clock:
    """``time.time`` as Fernet reads it, moved by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = time.time()
        monkeypatch.setattr(time, "time", lambda: self.now)


def wrap(store: Any, key: str = FERNET_KEY, ttl: int = 600) -> EncryptedSession:
    return EncryptedSession(store.session_id, store, encryption_key=key, ttl=ttl)


@pytest.mark.parametrize(  # ids by hand: the Fernet key is random, and xdist's workers must
    "key",  # collect the same names
    [FERNET_KEY, "a plain passphrase", "ünïcödé secret"],
    ids=["fernet-key", "passphrase", "unicode-passphrase"],
)
async def test_items_round_trip_and_are_stored_encrypted(key: str) -> None:
    store = InMemorySession("user-1")
    session = wrap(store, key)
    await session.add_items(CONVERSATION)
    assert await session.get_items() == CONVERSATION
    stored = await store.get_items()
    assert len(stored) == len(CONVERSATION)
    for envelope in stored:
        assert set(envelope) == {"__enc__", "v", "kid", "payload"}
        assert envelope["__enc__"] == 1 and envelope["kid"] == "hkdf-v1"
        assert "Paris" not in envelope["payload"]


async def test_another_key_or_another_session_id_is_an_error() -> None:
    # tests/security/test_session_attacks.py has these on real servers, and what is kept.
    store = InMemorySession("user-1")
    await wrap(store).add_items(CONVERSATION[:2])
    with pytest.raises(EncryptedHistoryError, match="do not decrypt with this encryption_key"):
        await wrap(store, key=Fernet.generate_key().decode()).get_items()
    other_salt = EncryptedSession("user-2", store, encryption_key=FERNET_KEY)
    with pytest.raises(UserError, match="2 of the 2 stored items read do not decrypt"):
        await other_salt.get_items()
    assert len(await store.get_items()) == 2


async def test_unencrypted_items_are_an_error() -> None:
    store = InMemorySession("s")
    await store.add_items(CONVERSATION[:1])
    session = wrap(store)
    await session.add_items(CONVERSATION[1:2])
    with pytest.raises(EncryptedHistoryError, match="1 of the 2 stored items read are not enc"):
        await session.get_items()
    assert await session.get_items(limit=1) == CONVERSATION[1:2]  # the window holds none


async def test_items_older_than_the_ttl_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(monkeypatch)
    store = InMemorySession("s")
    session = wrap(store, ttl=60)
    await session.add_items(CONVERSATION[:2])
    clock.now += 45
    await session.add_items(CONVERSATION[2:4])
    assert await session.get_items() == CONVERSATION[:4]
    clock.now += 30  # the first two are 75 s old, the others 30 s
    assert await session.get_items() == CONVERSATION[2:4]
    assert await session.get_items(limit=1) == CONVERSATION[3:4]
    assert len(await store.get_items()) == 4  # expired items stay until removed
    clock.now += 60
    assert await session.get_items() == []


async def test_pop_skips_and_removes_expired_items(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(monkeypatch)
    store = InMemorySession("s")
    session = wrap(store, ttl=10)
    await session.add_items(CONVERSATION[:1])
    clock.now += 20
    await session.add_items(CONVERSATION[1:2])
    assert await session.pop_item() == CONVERSATION[1]
    assert await session.pop_item() is None  # the expired one was removed on the way
    assert await store.get_items() == []


async def test_a_limit_counts_only_readable_items(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(monkeypatch)
    items = [{"role": "user", "content": str(i)} for i in range(8)]
    store = InMemorySession("s")
    session = wrap(store, ttl=60)
    await session.add_items(items[:2])
    clock.now += 45
    await session.add_items(items[2:7])
    clock.now += 30  # the first two expired; five readable items after them
    await session.add_items(items[7:])
    assert await session.get_items(limit=2) == items[6:]
    assert await session.get_items(limit=6) == items[2:]
    assert await session.get_items(limit=10) == items[2:]


async def test_settings_are_the_underlying_sessions() -> None:
    store = InMemorySession("s")
    session = wrap(store)
    assert session.session_settings is None
    session.session_settings = SessionSettings(limit=1)
    await session.add_items(CONVERSATION[:3])
    assert await session.get_items() == CONVERSATION[2:3]
    assert await session.get_items(limit=2) == CONVERSATION[1:3]


async def test_a_bad_batch_stores_nothing_and_other_attributes_pass_through(
    tmp_path: Path,
) -> None:
    store = SQLiteSession("s", tmp_path / "h.db")
    session = wrap(store)
    with pytest.raises(UserError, match="not JSON-serialisable"):
        await session.add_items([CONVERSATION[0], {"bad": object()}])
    assert await store.get_items() == []
    assert session.db_path == str(tmp_path / "h.db")  # the SQLite session's own attribute
    session.close()  # and its close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"encryption_key": ""}, "needs an encryption_key"),
        ({"ttl": 0}, "ttl must be"),
        ({"underlying_session": object()}, "must be a session"),
        ({"session_id": " "}, "session_id must be"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    args = {"session_id": "s", "underlying_session": InMemorySession("s"), "encryption_key": "k"}
    with pytest.raises(UserError, match=message):
        EncryptedSession(**{**args, **kwargs})


async def test_the_sdk_reads_what_we_wrote_and_we_read_what_it_wrote(tmp_path: Path) -> None:
    agents_memory = pytest.importorskip("agents.extensions.memory")
    import agents

    ours_store = SQLiteSession("user-9", tmp_path / "ours.db")
    await wrap(ours_store).add_items(CONVERSATION[:3])
    theirs = agents_memory.EncryptedSession(
        "user-9", agents.SQLiteSession("user-9", str(tmp_path / "ours.db")), FERNET_KEY
    )
    assert await theirs.get_items() == CONVERSATION[:3]

    await theirs.add_items(CONVERSATION[3:])
    assert await wrap(ours_store).get_items() == CONVERSATION
    ours_store.close()


@pytest.mark.parametrize(
    ("name", "package", "extra"),
    [
        ("SQLAlchemySession", "sqlalchemy", "sqlalchemy"),
        ("RedisSession", "redis", "redis"),
        ("EncryptedSession", "cryptography", "encrypt"),
    ],
)
def test_a_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, name: str, package: str, extra: str
) -> None:
    module = f"jupyter_agents.extensions.memory.{memory._LAZY[name][0]}"
    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.delitem(vars(memory), name, raising=False)
    for loaded in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
        monkeypatch.setitem(sys.modules, loaded, None)  # "not installed"
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ImportError) as caught:
        importlib.import_module("jupyter_agents.extensions.memory").__getattr__(name)
    assert str(caught.value) == (
        f"{name} requires the '{package}' extra: pip install 'jupyter_agents[{extra}]' "
        f"(openai-agents[{extra}] in the OpenAI Agents SDK)"
    )
    assert isinstance(caught.value.__cause__, ImportError)
