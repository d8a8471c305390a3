"""``%agent session [URL [ID] | off]``: where the notebook agent's conversations are stored.

By default a conversation lives in the kernel's memory. With a database URL, each agent's
conversation is a session of ``jupyter_agents.extensions.memory`` (``redis://``,
``rediss://`` and ``unix://`` URLs: ``RedisSession``; any other: a SQLAlchemy async URL,
``SQLAlchemySession``, tables created when missing), so it survives kernel restarts and
a team's notebooks can share one server. A URL's password is never shown.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from IPython.core.error import UsageError

from ...extensions import memory
from ...runtime.blocking import run_blocking
from ...runtime.sessions import Session

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["SessionStore", "mask_url", "session_magic"]

USAGE = "%agent session [URL [ID] | off]"
_REDIS_SCHEMES = ("redis", "rediss", "unix")


def mask_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<an unreadable URL>"
    if not password:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def default_prefix() -> str:
    """``user/notebook``: the JupyterHub user (else the OS user) and the notebook's name (when
    the server tells the kernel, else ``notebook``)."""
    path = os.environ.get("JPY_SESSION_NAME", "")
    notebook = os.path.splitext(os.path.basename(path))[0] if path else "notebook"
    # JupyterHub names the user; its containers often all run as the same OS user (jovyan).
    user = os.environ.get("JUPYTERHUB_USER", "")
    if not user:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "user"
    return f"{user}/{notebook}"


@dataclass(frozen=True)
class SessionStore:
    """Where conversations go: a URL, and the prefix of their session ids."""

    url: str
    prefix: str

    def session_id(self, agent: str) -> str:
        """The session id of ``agent``'s conversation: ``prefix/agent``."""
        return f"{self.prefix}/{agent}"

    def open(self, agent: str) -> Session:
        """A session for ``agent``'s conversation on this store."""
        scheme = self.url.partition("://")[0].lower()
        sid = self.session_id(agent)
        session: Any
        if scheme in _REDIS_SCHEMES:
            session = memory.RedisSession.from_url(sid, url=self.url)
        else:
            session = memory.SQLAlchemySession.from_url(sid, url=self.url, create_tables=True)
        return session  # type: ignore[no-any-return]

    def describe(self) -> str:
        return f"{mask_url(self.url)} (session ids {self.prefix}/AGENT)"


def _hide(text: str, url: str) -> str:
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    return text.replace(password, "***") if password else text


def _check(store: SessionStore) -> None:
    """Open the notebook agent's session once, so a wrong URL is reported now."""
    try:
        session: Any = store.open("notebook")
        try:
            run_blocking(session.get_items(limit=1))
        finally:
            run_blocking(session.close())
    except Exception as exc:
        detail = _hide(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, store.url)
        raise UsageError(f"%agent session: {mask_url(store.url)}: {detail}") from None


def session_magic(host: NotebookHost, words: list[str]) -> None:
    """Show, set or turn off where conversations are stored."""
    if not words:
        where = host.session_store.describe() if host.session_store else "this kernel's memory"
        print(f"jupyter_agents: conversations are stored in {where}")
        return
    if words == ["off"]:
        host.use_session_store(None)
        print("jupyter_agents: conversations are stored in this kernel's memory")
        return
    if len(words) > 2 or "://" not in words[0]:
        raise UsageError(
            f"{USAGE}, e.g. %agent session postgresql+asyncpg://user@host/db or "
            "%agent session redis://host:6379/0"
        )
    store = SessionStore(words[0], words[1] if len(words) == 2 else default_prefix())
    _check(store)
    host.use_session_store(store)
    print(f"jupyter_agents: conversations are stored in {store.describe()}")
