"""Tool calls that went on in the background after the run stopped waiting for them: what their
cards say, from "still running in the background" to what they did once they ended.

A plain (sync) function tool runs on a thread that Python cannot stop (see
``runtime/tools/background.py``). A call the run was stopped during (Stop, Interrupt) shows the
card status ``background`` until it ends, then ``done`` or ``error`` with a note of what it
returned or raised; a call that timed out keeps its ``timeout`` status, and its note says the
same. The model never saw what such a call did: the note is for the person.
"""

from __future__ import annotations

from ...runtime.tools.background import BackgroundCall, BackgroundEnd
from .display_text import clip, output_text
from .widget_state import ToolBlock

__all__ = ["NOTE_CHARS", "ended_note", "mark_ended", "mark_running", "running_note"]

NOTE_CHARS = 200
"""Characters of the output (or error) a note quotes."""


def _after(call: BackgroundCall) -> str:
    return "after it timed out" if call.reason == "timeout" else "after the run was stopped"


def running_note(call: BackgroundCall) -> str:
    """The card's note while the call goes on (its status says the rest)."""
    if call.reason == "timeout":
        return (
            "still running in the background (a thread cannot be stopped): "
            "this card will say what it did"
        )
    return "the run was stopped, but a thread cannot be stopped: this card will say what it did"


def ended_note(call: BackgroundCall, end: BackgroundEnd) -> str:
    """The note once the call ended: what it returned or raised, on one short line."""
    if end.error is not None:
        what, verb = f"{type(end.error).__name__}: {end.error}", "failed"
    else:
        what, verb = output_text(end.output), "finished"
    short = clip(" ".join(what.split()), NOTE_CHARS)[0]
    return f"{verb} in the background {_after(call)}" + (f": {short}" if short else "")


def mark_running(card: ToolBlock, call: BackgroundCall) -> None:
    """Show on ``card`` that its call goes on in the background."""
    if call.reason == "stopped":
        card["status"] = "background"
    card["note"] = running_note(call)


def mark_ended(card: ToolBlock, call: BackgroundCall, end: BackgroundEnd) -> None:
    """Show on ``card`` how its background call ended."""
    if card.get("status") == "background":
        card["status"] = "error" if end.error is not None else "done"
    card["note"] = ended_note(call, end)
