"""The one-line error for a session store whose optional dependency is not installed."""

from __future__ import annotations

from typing import NoReturn

__all__ = ["missing_extra"]


def missing_extra(store: str, package: str, extra: str, cause: ImportError) -> NoReturn:
    """Raise an ``ImportError`` that says which extra to install."""
    raise ImportError(
        f"{store} needs the '{package}' package: pip install 'jupyter_agents[{extra}]'"
    ) from cause
