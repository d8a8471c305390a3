"""``SessionSettings``: how much history a session hands to a run (the SDK's
``agents.memory.session_settings``).

A session may carry its own settings (``SQLAlchemySession(..., session_settings=...)``); a run
may override them (``RunConfig(session_settings=...)``). Values that are ``None`` leave the
other side's value in place.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ._common import check_limit

__all__ = ["SessionSettings", "coerce_session_settings", "history_limit", "resolve_session_limit"]


@dataclass
class SessionSettings:
    """Settings for reading a session's history."""

    limit: int | None = None
    """Read at most this many of the latest items (oldest first); ``None`` reads them all."""

    def __post_init__(self) -> None:
        self.limit = check_limit(self.limit)

    def resolve(self, override: SessionSettings | dict[str, Any] | None) -> SessionSettings:
        """These settings with every value that ``override`` sets (not ``None``) laid on top."""
        if override is None:
            return self
        given = coerce_session_settings(override)
        changes = {
            f.name: getattr(given, f.name)
            for f in dataclasses.fields(given)
            if getattr(given, f.name) is not None
        }
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain dict."""
        return dataclasses.asdict(self)


def coerce_session_settings(value: SessionSettings | dict[str, Any] | None) -> SessionSettings:
    """``value`` as ``SessionSettings`` (a dict gives its fields; ``None`` the defaults)."""
    if value is None:
        return SessionSettings()
    if isinstance(value, SessionSettings):
        return value
    if isinstance(value, dict):
        known = {f.name for f in dataclasses.fields(SessionSettings)}
        unknown = sorted(str(k) for k in value if k not in known)
        if unknown:
            raise UserError(
                f"session_settings: unknown field(s) {', '.join(unknown)}; "
                f"SessionSettings has {', '.join(sorted(known))}."
            )
        return SessionSettings(**value)
    raise UserError(
        f"session_settings must be a SessionSettings or a dict, got {type(value).__name__}."
    )


def resolve_session_limit(
    explicit: int | None, settings: SessionSettings | dict[str, Any] | None
) -> int | None:
    """The limit a ``get_items`` call uses: its own argument, else the settings' ``limit``."""
    if explicit is not None:
        return check_limit(explicit)
    return coerce_session_settings(settings).limit if settings is not None else None


def history_limit(session: object, run_settings: SessionSettings | None) -> int | None:
    """How many history items a run loads: the session's own settings (if it has any) with the
    run's (``RunConfig.session_settings``) laid on top."""
    own = getattr(session, "session_settings", None)
    base = own if isinstance(own, SessionSettings) else SessionSettings()
    return base.resolve(run_settings).limit
