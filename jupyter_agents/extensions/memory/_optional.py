"""The one-line error for a session store whose optional dependency is not installed."""

from __future__ import annotations

from typing import NoReturn

__all__ = ["missing_extra"]


def missing_extra(store: str, package: str, extra: str, cause: ImportError) -> NoReturn:
    """Raise an ``ImportError`` that says which extra to install (worded as the SDK's, which
    names the same extra of ``openai-agents``)."""
    raise ImportError(
        f"{store} requires the '{package}' extra: pip install 'jupyter_agents[{extra}]' "
        f"(openai-agents[{extra}] in the OpenAI Agents SDK)"
    ) from cause
