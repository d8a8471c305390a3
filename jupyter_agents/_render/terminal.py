"""Untrusted text for a terminal (a CI log, a headless run): escape sequences and control
characters dropped, so text from a model, a tool or a dataset cannot move the cursor, retitle
the window or clear the screen."""

from __future__ import annotations

import re

__all__ = ["strip_ansi", "terminal_safe"]

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

_SGR = re.compile(r"\x1b\[[0-9;]*m")
"""A colour (select graphic rendition) sequence: the one escape a terminal part keeps."""

_CONTROL = re.compile(r"(?!\x1b\[[0-9;]*m)[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters other than newline and tab, but the escape that starts a colour."""


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (colours, cursor moves, titles)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def terminal_safe(text: str, colours: bool = False) -> str:
    """``text`` for a real terminal: every escape sequence and control character (but newline
    and tab) dropped, so untrusted text cannot move the cursor, retitle the window or clear the
    screen; colour sequences are kept when ``colours``."""
    if "\x1b" in text:
        text = _ANSI.sub(lambda m: m[0] if colours and _SGR.fullmatch(m[0]) else "", text)
    return _CONTROL.sub("", text)
