"""A tool call answered from a recording (kept apart so the run loop need not import the
model side of replay), and how a call's card is kept in a recording: the kind's
``ToolDisplay`` (parts, badge, origin) as JSON, so a replayed card looks
as it did, and what the call printed while it ran.

A recording comes from a file or a notebook someone else wrote: what it holds is as untrusted
as a tool's output (its parts are drawn like any output), and anything not of the expected
shape is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from ..tools.display import DisplayPart, LiveOutput, PartRole, PartType, ToolDisplay

__all__ = ["PART_CHARS", "PRINTED_CHARS", "RecordedOutput", "display_from_json", "display_to_json"]

PART_CHARS = 60_000
"""The most of one part's text a recording keeps (a saved transcript keeps less)."""

PRINTED_CHARS = 20_000
"""The most of what a call printed a recording keeps (its end)."""

_TYPES: tuple[str, ...] = get_args(PartType)
_ROLES: tuple[str, ...] = get_args(PartRole)
_LIVE: tuple[str, ...] = get_args(LiveOutput)


@dataclass(frozen=True)
class RecordedOutput:
    """A tool call answered from the recording: the output item the model got, what its card
    showed (``display``) and what it printed while it ran."""

    item: dict[str, Any]
    shown: Any
    display: ToolDisplay | None = None
    printed: str = ""


def display_to_json(display: ToolDisplay) -> dict[str, Any]:
    """``display`` as JSON (each part's text cut at ``PART_CHARS``)."""
    return {
        "kind": display.kind,
        "title": display.title,
        "parts": [
            {"type": p.type, "text": p.text[:PART_CHARS], "language": p.language, "role": p.role}
            for p in display.parts
        ],
        "badge": display.badge,
        "origin": display.origin,
        "live": display.live,
    }


def display_from_json(data: Any) -> ToolDisplay | None:
    """The display ``display_to_json`` made; None for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("parts"), list):
        return None
    parts = []
    for part in data["parts"]:
        if not isinstance(part, dict) or part.get("type") not in _TYPES:
            continue
        language = part.get("language")
        parts.append(
            DisplayPart(
                type=part["type"],
                text=str(part.get("text", ""))[:PART_CHARS],
                language=language if isinstance(language, str) else None,
                role=part["role"] if part.get("role") in _ROLES else "output",
            )
        )
    return ToolDisplay(
        kind=_text(data.get("kind")) or "unknown",
        title=_text(data.get("title")) or "tool",
        parts=tuple(parts),
        badge=_text(data.get("badge")),
        origin=_text(data.get("origin")),
        live=data["live"] if data.get("live") in _LIVE else "text",
    )


def _text(value: Any) -> str | None:
    return value[:200] if isinstance(value, str) else None
