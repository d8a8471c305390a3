"""The Jupyter server extension: ``GET /jupyter-agents/locks`` answers the site's locked settings,
so that the lab extension can show them (its Settings editor, the mode menu).

The locks live in files on the server's machine (``runtime/project/settings.py``), where the
page cannot read them. The endpoint only reads: it is authenticated like every Jupyter API
handler and answers nothing but the locks, which bind the people who can see them anyway
(``%agent config`` shows them).

Installing the package enables it (``jupyter-config/jupyter_server_config.d/jupyter_agents.json``,
shipped into ``{sys.prefix}/etc/jupyter``); ``jupyter_agents._jupyter_server_extension_points``
names this module. Only a Jupyter server imports it: ``%load_ext jupyter_agents`` never does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Union

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from typing_extensions import NotRequired, TypedDict

from .runtime.project.settings import Lock, site_locks
from .runtime.project.settings_keys import KEYS, is_looser

__all__ = ["LOCKS_PATH", "LockAnswer", "LocksAnswer", "LocksHandler", "locks_answer"]

LOCKS_PATH = "jupyter-agents/locks"
"""The endpoint's path under the server's ``base_url``."""

LockValue = Union[str, bool, int, float, list[str], None]
"""A lock's value as JSON: a name or switch, dollars (null: no limit), or a list of names."""


class LockAnswer(TypedDict):
    """One locked setting."""

    value: LockValue
    """The loosest value anyone may choose (a floor, see ``settings_keys.is_looser``)."""
    file: str
    """The site's file that locks it."""
    allowed: NotRequired[list[str]]
    """For a key of named values (``approve``, ``mode``, ...): those still allowed, the
    strictest first, so the page needs no order of its own."""


class LocksAnswer(TypedDict):
    """What ``GET /jupyter-agents/locks`` answers: each locked key, in ``%agent config``'s
    order."""

    locks: dict[str, LockAnswer]


def _json_value(value: object) -> LockValue:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, tuple):
        return [str(item) for item in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"a lock's value cannot be {type(value).__name__}")  # settings_keys' kinds


def locks_answer(locks: Mapping[str, Lock]) -> LocksAnswer:
    """The endpoint's answer for ``locks`` (``site_locks()``)."""
    answer: dict[str, LockAnswer] = {}
    for name, key in KEYS.items():
        lock = locks.get(name)
        if lock is None:
            continue
        entry = LockAnswer(value=_json_value(lock.value), file=str(lock.path))
        if key.kind == "order":
            entry["allowed"] = [v for v in key.values if not is_looser(key, v, lock.value)]
        answer[name] = entry
    return LocksAnswer(locks=answer)


class LocksHandler(APIHandler):
    """``GET``: the site's locks (``LocksAnswer``), read now (``site_locks`` keeps them
    while the site's files are unchanged)."""

    @tornado.web.authenticated
    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(locks_answer(site_locks())))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """This module, for ``"jpserver_extensions": {"jupyter_agents.server_extension": true}``
    (the package's own function names it too)."""
    return [{"module": "jupyter_agents.server_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Add the handler under the server's ``base_url``."""
    web_app = serverapp.web_app
    route = url_path_join(web_app.settings["base_url"], LOCKS_PATH)
    web_app.add_handlers(".*$", [(route, LocksHandler)])
