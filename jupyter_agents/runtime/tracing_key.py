"""The API key traces are exported to OpenAI with, shared by the model settings that give it
(``set_default_openai_client(client, use_for_tracing=True)``) and the tracing that uses it,
which may not import each other.

Nothing leaves the process through it unless an exporter to OpenAI is in use.
"""

from __future__ import annotations

__all__ = ["set_tracing_export_key", "tracing_export_key"]

_key: list[str | None] = [None]


def set_tracing_export_key(key: str | None) -> None:
    """Use ``key`` to export traces to OpenAI (None: none set)."""
    _key[0] = key


def tracing_export_key() -> str | None:
    """The key set for exporting traces to OpenAI, if any."""
    return _key[0]
