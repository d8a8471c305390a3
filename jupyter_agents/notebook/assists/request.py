"""An assist's request, read as untrusted JSON: every field is checked and capped, no other field
is accepted, and a request that does not validate is refused with one line saying why (nothing
runs)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..chat.request import RequestError, load_object, text_field
from .contract import ASSIST_KINDS, MODES, AssistKind, Mode

__all__ = ["CELL_ID", "MAX_ASSIST_REQUEST", "Assist", "RequestError", "parse_assist"]

CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A cell's id as nbformat 4.5 allows it: no path, quote, space or ``/`` can be in it."""

MAX_ASSIST_REQUEST = 200_000
"""Characters of the whole request (an instruction is capped at 100,000)."""

FIELDS = frozenset({"kind", "cell", "prompt", "mode"})


@dataclass(frozen=True)
class Assist:
    """A validated assist request."""

    kind: AssistKind
    cell: str
    """The id of the cell it is about."""
    prompt: str = ""
    """What the person asked ("" for none)."""
    mode: Mode | None = None
    """The run's mode (None: the notebook's)."""


def parse_assist(raw: str) -> Assist:
    """The request in ``raw`` (a JSON object), validated.

    Raises:
        RequestError: It is not JSON, not an object, has a field it should not, or a field is
            missing or malformed.
    """
    data = load_object(raw, "the assist request", MAX_ASSIST_REQUEST)
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise RequestError(f"the assist request has unknown fields: {', '.join(unknown)[:200]}")
    kind = data.get("kind")
    if kind not in ASSIST_KINDS:
        raise RequestError(f"the kind must be one of {', '.join(ASSIST_KINDS)}")
    cell = data.get("cell")
    if not isinstance(cell, str) or not CELL_ID.fullmatch(cell):
        raise RequestError("the cell must be a cell id: 1 to 64 letters, digits, '-' or '_'")
    prompt = text_field(data.get("prompt", ""), "prompt")
    if kind == "generate" and not prompt.strip():
        raise RequestError("say what the cell should do")
    mode = data.get("mode")
    if mode is not None and mode not in MODES:
        raise RequestError(f"the mode must be one of {', '.join(MODES)}")
    return Assist(
        kind=kind,
        cell=cell,
        prompt=prompt.strip(),
        mode=mode,
    )
