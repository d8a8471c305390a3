"""A kind's display parts as a tool card holds them: each ``DisplayPart`` as it is, its text cut
at the view's limit, and an image kept only when it is inline raster data (anything else is
only named). This is the one place the view shapes parts; the frontends draw them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...runtime.tools.display import DisplayPart
from .display_text import IMAGE_URL, MAX_IMAGE_CHARS, clip, output_image, output_text
from .widget_state import Part, ToolStatus

CARD_STATUS: dict[str, ToolStatus] = {
    "ok": "done",
    "error": "error",
    "timeout": "timeout",
    "rejected": "rejected",
    "blocked": "blocked",
    "cancelled": "cancelled",
}
"""A call's outcome (``ToolCallOutputItem.status``) -> its card's status."""

__all__ = ["CALL_CHARS", "CARD_STATUS", "card_part", "card_parts", "output_of", "raw_output_parts"]

CALL_CHARS = 100_000
"""A part that shows the call (the code that will run, the change that will be made) is what
a person approves: a live card keeps it whole up to this long, whatever the view's limit for
arguments (the notebook's cell tools never ask with a longer card, ``cell_cards.CARD_CHARS``)."""


def card_part(part: DisplayPart, limit: int) -> Part | None:
    """``part`` for a card, its text cut at ``limit``; None for an empty part."""
    if part.type == "image":
        if len(part.text) <= MAX_IMAGE_CHARS and IMAGE_URL.fullmatch(part.text):
            out: Part = {"type": "image", "text": part.text}
        else:  # an address is never fetched, and a huge image not kept: named instead
            out = {"type": "text", "text": "[image]"}
    elif not part.text:
        return None
    else:
        text, cut = clip(part.text, limit)
        out = {"type": part.type, "text": text}
        if cut is not None:
            out["cut"] = cut
    if part.language:
        out["language"] = part.language
    if part.role == "call":
        out["role"] = "call"
    return out


def card_parts(parts: Iterable[DisplayPart], *, call_chars: int, output_chars: int) -> list[Part]:
    """The parts of a card: the call's cut at ``call_chars``, the output's at ``output_chars``."""
    out = []
    for part in parts:
        shaped = card_part(part, call_chars if part.role == "call" else output_chars)
        if shaped is not None:
            out.append(shaped)
    return out


def raw_output_parts(raw_output: Any) -> tuple[DisplayPart, ...]:
    """The parts of an output whose call is not known: its text (structured outputs keep their
    text, images and files are named) and its first image."""
    parts = [DisplayPart("text", output_text(raw_output))]
    image = output_image(raw_output)
    if image is not None:
        parts.append(DisplayPart("image", image))
    return tuple(parts)


def output_of(card: Mapping[str, Any]) -> str:
    """The text of a card's output parts, one after the other (images left out)."""
    parts = card.get("parts") or []
    return "\n".join(
        str(p.get("text", ""))
        for p in parts
        if isinstance(p, dict) and p.get("role") != "call" and p.get("type") != "image"
    )
