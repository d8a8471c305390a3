"""How a person sees a tool call: ``ToolDisplay`` and its typed ``DisplayPart`` s.

A kind's ``describe`` returns a ``ToolDisplay``; the notebook layer puts its parts on the
call's card as they are, and every frontend (the widget, the static transcript, the terminal)
renders each part type in one place. A new kind that uses these part types therefore needs no
change outside its own module. The parts are plain, untrusted data: frontends show them as text
(an image only from inline ``data:`` URLs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from .outputs import to_model_output

__all__ = [
    "STEP_MARKS",
    "DisplayPart",
    "LiveOutput",
    "PartRole",
    "PartType",
    "StepStatus",
    "ToolDisplay",
    "output_parts",
]

PartType = Literal["text", "code", "terminal", "diff", "image", "json", "error"]
"""How a part is drawn: prose, highlighted code, terminal output (ANSI colours), a diff (lines
classed by what they do), an image, JSON, or an error."""

PartRole = Literal["call", "output"]
"""What a part shows: the call itself (the code it runs, the changes it makes; shown before
anyone approves, in place of the raw JSON arguments) or its output."""

LiveOutput = Literal["text", "terminal"]
"""How what a call prints while it runs is shown."""

StepStatus = Literal["pending", "in_progress", "completed"]
"""Where a step of a plan (``update_plan``) is."""

STEP_MARKS: dict[StepStatus, str] = {"pending": "○", "in_progress": "◐", "completed": "✓"}
"""How every user interface marks a step of each status."""


@dataclass(frozen=True)
class DisplayPart:
    """One piece of a call or its output, typed so a user interface can render it."""

    type: PartType
    """How to show it (see ``PartType``)."""

    text: str = ""
    """The content (for ``image``: a ``data:`` URL; anything else is only named)."""

    language: str | None = None
    """For ``code``: the language, e.g. ``"python"`` (Python is highlighted)."""

    role: PartRole = "output"
    """``"call"`` for a part that shows the call itself (see ``PartRole``)."""


@dataclass(frozen=True)
class ToolDisplay:
    """How a person sees one tool call; plain data, no widgets."""

    kind: str
    """The tool kind's name (``"function"``, ``"hosted"``, ...)."""

    title: str
    """A short title, usually the tool's name."""

    arguments: Any = None
    """The arguments as the model sent them (parsed JSON when they parse)."""

    parts: tuple[DisplayPart, ...] = ()
    """The call's parts (``role="call"``, first) and its output's parts, in order; only the
    call's while it runs."""

    badge: str | None = None
    """A word on how the call is treated, e.g. a shell call's policy verdict (``safe``,
    ``sandboxed``, ``escalated``, ...)."""

    origin: str | None = None
    """Where the tool comes from when its name does not say, e.g. an MCP tool's server and
    own name (``"git › git_status"``)."""

    live: LiveOutput = "text"
    """How what the call prints while it runs is shown: ``"terminal"`` (ANSI colours kept; the
    finished output repeats it, so it goes once the output is there) or ``"text"`` (plain, kept
    beside the output)."""


def output_parts(value: Any) -> tuple[DisplayPart, ...]:
    """How a tool's return value looks: a string as text; structured outputs (text, images,
    files, alone or in a list) as text, image and file-name parts; a dict or list as JSON;
    anything else as the text the model receives."""
    if isinstance(value, str):
        return (DisplayPart("text", value),)
    model = to_model_output(value)
    if isinstance(model, list):
        return tuple(_content_part(p) for p in model)
    if isinstance(value, (dict, list, tuple)):
        try:
            return (DisplayPart("json", json.dumps(value, indent=2, ensure_ascii=False)),)
        except (TypeError, ValueError):
            pass
    return (DisplayPart("text", model),)


def _content_part(part: dict[str, Any]) -> DisplayPart:
    """A Responses API content part (``input_text``, ``input_image``, ``input_file``)."""
    kind = part.get("type")
    if kind == "input_text":
        return DisplayPart("text", str(part.get("text", "")))
    if kind == "input_image" and isinstance(part.get("image_url"), str):
        return DisplayPart("image", part["image_url"])
    if kind == "input_file" and isinstance(part.get("filename"), str):
        return DisplayPart("text", f"[file: {part['filename']}]")  # named, never a live link
    return DisplayPart("text", f"[{str(kind).removeprefix('input_')}]")
