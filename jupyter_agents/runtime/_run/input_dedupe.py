"""Collapse repeated items of a model input (what ``call_model_input_filter`` returned) into one
each, as the SDK does before sending: the latest value wins, and a repeat never moves an item to
a place the Responses API refuses (an output before its call, a reasoning item after the call
it introduced)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..items import FAKE_RESPONSES_ID, TResponseInputItem

__all__ = ["latest_unique"]

_CALL_TO_OUTPUT = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "tool_search_call": "tool_search_output",
}
_CALL_ID_KINDS = frozenset({*_CALL_TO_OUTPUT, *_CALL_TO_OUTPUT.values()})
# Items that something later depends on (an output, a call a reasoning item led to): a repeat
# keeps the first one's place. Any other repeat takes the last one's place.
_KEEP_FIRST_PLACE = frozenset({*_CALL_TO_OUTPUT, "mcp_approval_request", "reasoning"})


def _identity(item: Any) -> str | None:
    """What makes two items the same item (None: nothing does; messages are never merged)."""
    if not isinstance(item, dict):
        return None
    role, kind = item.get("role"), item.get("type")
    if role is not None or kind in (None, "message"):
        return None
    call_id = item.get("call_id")
    if isinstance(call_id, str) and kind in _CALL_ID_KINDS:
        return f"call:{kind}:{call_id}"
    item_id = item.get("id")
    if isinstance(item_id, str) and item_id != FAKE_RESPONSES_ID:  # not a Chat Completions stand-in
        return f"id:{kind}:{item_id}"
    if isinstance(call_id, str):
        return f"call:{kind}:{call_id}"
    request_id = item.get("approval_request_id")
    if isinstance(request_id, str):
        return f"approval:{kind}:{request_id}"
    return None


def latest_unique(items: Sequence[TResponseInputItem]) -> list[TResponseInputItem]:
    """``items`` with each repeated item once: its latest value, at its first place for a call
    or a reasoning item and at its last place otherwise; items without an identity untouched."""
    identities = [_identity(item) for item in items]
    named = [i for i in identities if i is not None]
    if len(set(named)) == len(named):
        return list(items)  # the usual case: nothing repeats
    latest: dict[str, TResponseInputItem] = {}
    place: dict[str, int] = {}
    for index, (item, identity) in enumerate(zip(items, identities, strict=True)):
        if identity is None:
            continue
        latest[identity] = item
        if identity not in place or item.get("type") not in _KEEP_FIRST_PLACE:
            place[identity] = index
    kept: list[TResponseInputItem] = []
    for index, (item, identity) in enumerate(zip(items, identities, strict=True)):
        if identity is None:
            kept.append(item)
        elif place[identity] == index:
            kept.append(latest[identity])
    return kept
