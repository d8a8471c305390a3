"""A chat turn's request, read as untrusted JSON: every field is checked and capped, and a
request that does not validate is refused with one line saying why (nothing runs)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .contract import MODES, HistoryEntry, Mention, Mode, SlashCommand

__all__ = [
    "MAX_HISTORY",
    "MAX_MENTIONS",
    "MAX_MESSAGE",
    "THREAD_ID",
    "ChatRequest",
    "RequestError",
    "load_object",
    "parse_request",
    "text_field",
]

THREAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A thread's id (and so a run's cell id prefix): no path, quote or space can be in it."""

MAX_MESSAGE = 100_000
"""Characters of a message (or a selection, or a prompt's text)."""

MAX_MENTIONS = 20
MAX_NAME = 1_000
"""Characters of a mention's name (a cell id, a variable, a path)."""

MAX_HISTORY = 200
"""Saved texts of a thread sent back as its history (each capped at ``MAX_MESSAGE``)."""

MAX_REQUEST = 5_000_000
"""Characters of the whole request."""


class RequestError(ValueError):
    """The request is malformed: one line saying what."""


@dataclass(frozen=True)
class ChatRequest:
    """A validated chat turn."""

    thread: str
    message: str
    mode: Mode | None = None
    active_cell: str | None = None
    selection: str = ""
    mentions: tuple[Mention, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    command: SlashCommand | None = None


def load_object(raw: str, what: str, limit: int = MAX_REQUEST) -> dict[str, object]:
    """The JSON object in ``raw`` (``what``: "the chat request", for the error's words).

    Raises:
        RequestError: It is not text, longer than ``limit``, not JSON, or not an object.
    """
    if not isinstance(raw, str) or len(raw) > limit:
        raise RequestError(f"{what} is not text, or is too large")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise RequestError(f"{what} is not JSON") from None
    if not isinstance(data, dict):
        raise RequestError(f"{what} is not a JSON object")
    return data


def parse_request(raw: str) -> ChatRequest:
    """The request in ``raw`` (a JSON object), validated.

    Raises:
        RequestError: It is not JSON, not an object, or a field is missing or malformed.
    """
    data = load_object(raw, "the chat request")
    thread = data.get("thread")
    if not isinstance(thread, str) or not THREAD_ID.fullmatch(thread):
        raise RequestError("the thread id must be 1 to 64 letters, digits, '-' or '_'")
    message = text_field(data.get("message"), "message")
    mode = data.get("mode")
    if mode is not None and mode not in MODES:
        raise RequestError(f"the mode must be one of {', '.join(MODES)}")
    active = data.get("active_cell")
    if active is not None and not (isinstance(active, str) and 0 < len(active) <= MAX_NAME):
        raise RequestError("the active cell must be a cell id")
    selection = text_field(data.get("selection", ""), "selection")
    return ChatRequest(
        thread=thread,
        message=message,
        mode=mode,
        active_cell=active,
        selection=selection,
        mentions=_mentions(data.get("mentions", [])),
        history=_history(data.get("history", [])),
        command=_command(data.get("command")),
    )


def text_field(value: object, what: str) -> str:
    """``value`` when it is text of at most ``MAX_MESSAGE`` characters.

    Raises:
        RequestError: It is not text, or is longer.
    """
    if not isinstance(value, str):
        raise RequestError(f"the {what} must be text")
    if len(value) > MAX_MESSAGE:
        raise RequestError(f"the {what} is longer than {MAX_MESSAGE:,} characters")
    return value


def _mentions(value: object) -> tuple[Mention, ...]:
    if not isinstance(value, list) or len(value) > MAX_MENTIONS:
        raise RequestError(f"mentions must be a list of at most {MAX_MENTIONS}")
    found: list[Mention] = []
    for item in value:
        kind = item.get("kind") if isinstance(item, dict) else None
        name = item.get("name") if isinstance(item, dict) else None
        if kind not in ("cell", "var", "file") or not isinstance(name, str):
            raise RequestError("a mention must have a kind (cell, var, file) and a name")
        if not 0 < len(name) <= MAX_NAME:
            raise RequestError(f"a mention's name must be 1 to {MAX_NAME} characters")
        found.append({"kind": kind, "name": name})
    return tuple(found)


def _history(value: object) -> tuple[HistoryEntry, ...]:
    """The saved texts, the last ``MAX_HISTORY``; entries that do not validate are dropped
    (they come from a notebook's metadata, which anyone may have written)."""
    if not isinstance(value, list):
        raise RequestError("the history must be a list")
    kept: list[HistoryEntry] = []
    for item in value[-MAX_HISTORY:]:
        role = item.get("role") if isinstance(item, dict) else None
        text = item.get("text") if isinstance(item, dict) else None
        if role in ("user", "assistant") and isinstance(text, str) and text.strip():
            kept.append({"role": role, "text": text[:MAX_MESSAGE]})
    return tuple(kept)


def _command(value: object) -> SlashCommand | None:
    if value is None:
        return None
    name = value.get("name") if isinstance(value, dict) else None
    args = value.get("args", "") if isinstance(value, dict) else None
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or not isinstance(args, str):
        raise RequestError("a slash command must have a name and text arguments")
    return {"name": name, "args": args[:MAX_MESSAGE]}
