"""Nested handoff history: the conversation so far, folded into one assistant message for the
agent taking over (the SDK's ``agents.handoffs.history``).

``nest_handoff_history(data)`` is a handoff input filter. It turns the run's input and the
items before the handoff into a numbered transcript between two markers
(``<CONVERSATION HISTORY>`` and ``</CONVERSATION HISTORY>`` unless
``set_conversation_history_wrappers`` changed them), keeps the messages of the handing-off turn
as they are, and reads an earlier summary back into its items, so nesting twice gives one
summary, not a summary inside a summary. Tool arguments and outputs end up in the summary's
text: redact them before, not after, if the next agent must not see them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from copy import deepcopy
from typing import TYPE_CHECKING, Any, TypeAlias

from .items import ItemHelpers, RunItem, TResponseInputItem

if TYPE_CHECKING:
    from .handoffs import HandoffInputData

__all__ = [
    "HandoffHistoryMapper",
    "default_handoff_history_mapper",
    "get_conversation_history_wrappers",
    "nest_handoff_history",
    "reset_conversation_history_wrappers",
    "set_conversation_history_wrappers",
]

HandoffHistoryMapper: TypeAlias = Callable[[list[TResponseInputItem]], list[TResponseInputItem]]
"""Turns the transcript (input items, oldest first) into the items the next agent gets."""

_DEFAULT_START = "<CONVERSATION HISTORY>"
_DEFAULT_END = "</CONVERSATION HISTORY>"
_HEADING = "For context, here is the conversation so far between the user and the previous agent:"
_HEADINGS = frozenset({_HEADING, "For context, here is the conversation so far:"})
"""The first line of a summary: today's, and the one earlier SDK versions wrote."""

_ROLES = frozenset({"user", "assistant", "system", "developer"})

_SUMMARIZED_TYPES = frozenset({"function_call", "function_call_output", "reasoning"})
"""Items told in the summary rather than passed on (reasoning would be orphaned without its
calls)."""

_wrappers = [_DEFAULT_START, _DEFAULT_END]


def set_conversation_history_wrappers(*, start: str | None = None, end: str | None = None) -> None:
    """Change the markers around the summarized transcript (None keeps that side)."""
    if start is not None:
        _wrappers[0] = start
    if end is not None:
        _wrappers[1] = end


def reset_conversation_history_wrappers() -> None:
    """Go back to ``<CONVERSATION HISTORY>`` and ``</CONVERSATION HISTORY>``."""
    _wrappers[:] = [_DEFAULT_START, _DEFAULT_END]


def get_conversation_history_wrappers() -> tuple[str, str]:
    """The markers in use: ``(start, end)``."""
    return (_wrappers[0], _wrappers[1])


def default_handoff_history_mapper(
    transcript: list[TResponseInputItem],
) -> list[TResponseInputItem]:
    """The transcript as one assistant message summarizing it."""
    return [_summary_message(transcript)]


def nest_handoff_history(
    handoff_input_data: HandoffInputData,
    *,
    history_mapper: HandoffHistoryMapper | None = None,
) -> HandoffInputData:
    """``handoff_input_data`` with its history nested (a handoff input filter).

    The transcript is the input history (earlier summaries read back into their items), then
    the items before the handoff, then the handing-off turn's items (approvals left out).
    With ``history_mapper``, the result's ``input_history`` is what it returns for the whole
    transcript. Without, tool calls, tool outputs, reasoning and earlier assistant messages
    are summarized, in order, in assistant messages; the user's messages and the turn's own
    messages stay items of their own between them. ``pre_handoff_items`` and ``input_items``
    of the result are empty and ``new_items`` is unchanged (for the session's history).
    ``input_items`` of the argument is not read: filter the three other fields first.
    """
    history = handoff_input_data.input_history
    earlier = ItemHelpers.input_to_new_input_list(history) if isinstance(history, str) else history
    transcript = [_clean(item) for item in _unfold_summaries(earlier)]

    turns: list[tuple[TResponseInputItem, bool]] = []
    for run_item in handoff_input_data.pre_handoff_items:
        item = _as_input(run_item)
        if item is not None:
            turns.append((item, _keep_before_handoff(item)))
    for run_item in handoff_input_data.new_items:
        item = _as_input(run_item)
        if item is not None:
            turns.append((item, _keep_in_handoff_turn(item)))

    if history_mapper is not None:
        nested = history_mapper(transcript + [item for item, _ in turns])
    else:
        nested = _ordered_history(transcript, turns)
    return handoff_input_data.clone(
        input_history=tuple(deepcopy(item) for item in nested),
        pre_handoff_items=(),
        input_items=(),
    )


def _as_input(run_item: RunItem) -> TResponseInputItem | None:
    if run_item.type == "tool_approval_item":
        return None
    item = deepcopy(run_item.to_input_item())
    if item.get("status", "") is None:
        del item["status"]
    return item


def _ordered_history(
    transcript: list[TResponseInputItem], turns: list[tuple[TResponseInputItem, bool]]
) -> list[TResponseInputItem]:
    result: list[TResponseInputItem] = []
    pending = list(transcript)
    for item, keep in turns:
        if not keep:
            pending.append(item)
            continue
        if pending or not result:
            result.extend(default_handoff_history_mapper(pending))
            pending = []
        result.append(item)
    if pending or not result:
        result.extend(default_handoff_history_mapper(pending))
    return result


def _is_program_item(item: TResponseInputItem) -> bool:
    """Part of a hosted program's transcript (which is summarized whole)."""
    if item.get("type") in ("program", "program_output"):
        return True
    caller = item.get("caller")
    kind = caller.get("type") if isinstance(caller, Mapping) else getattr(caller, "type", None)
    return bool(kind == "program")


def _keep_before_handoff(item: TResponseInputItem) -> bool:
    if _is_program_item(item) or item.get("role") == "assistant":
        return False
    return item.get("type") not in _SUMMARIZED_TYPES


def _keep_in_handoff_turn(item: TResponseInputItem) -> bool:
    if _is_program_item(item):
        return False
    role = item.get("role")
    if isinstance(role, str) and role:
        return True
    return item.get("type") not in _SUMMARIZED_TYPES


def _clean(item: TResponseInputItem) -> TResponseInputItem:
    if isinstance(item, dict) and "created_by" in item:
        return {k: v for k, v in item.items() if k != "created_by"}
    return item


# -- writing a summary -------------------------------------------------------------------


def _summary_message(transcript: list[TResponseInputItem]) -> TResponseInputItem:
    lines = [f"{n}. {_describe(item)}" for n, item in enumerate(transcript, 1)]
    start, end = get_conversation_history_wrappers()
    body = lines or ["(no previous turns recorded)"]
    return {"role": "assistant", "content": "\n".join([_HEADING, start, *body, end])}


def _describe(item: TResponseInputItem) -> str:
    """One transcript line: ``role (name): text`` for a one-line text message, else the item
    as JSON (which reads back exactly)."""
    item = _clean(item)
    if isinstance(item.get("role"), str):
        content = item.get("content")
        if content is None or (
            isinstance(content, str) and "\n" not in content and "\r" not in content
        ):
            return _describe_plainly(item)
    payload = {k: v for k, v in item.items() if k != "provider_data"}
    try:
        return json.dumps(payload, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return _describe_plainly(item)


def _describe_plainly(item: TResponseInputItem) -> str:
    role = item.get("role")
    if isinstance(role, str):
        name = item.get("name")
        who = f"{role} ({name})" if isinstance(name, str) and name else role
        return f"{who}: {_text_of(item.get('content'))}"
    kind = item.get("type", "item")
    rest = {k: v for k, v in item.items() if k not in ("type", "provider_data")}
    try:
        text = json.dumps(rest, ensure_ascii=False, default=str)
    except TypeError:
        text = str(rest)
    return f"{kind}: {text}" if text else str(kind)


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except TypeError:
        return str(content)


# -- reading a summary back --------------------------------------------------------------


def _unfold_summaries(items: Any) -> list[TResponseInputItem]:
    unfolded: list[TResponseInputItem] = []
    for item in items:
        inner = _summary_items(item)
        if inner is None:
            unfolded.append(deepcopy(item))
        else:
            unfolded.extend(inner)
    return unfolded


def _summary_items(item: TResponseInputItem) -> list[TResponseInputItem] | None:
    """The items an earlier summary message holds, or None when ``item`` is not one (an
    assistant message that only quotes the markers is not: the whole text must be a summary)."""
    if item.get("role") != "assistant" or not isinstance(item.get("content"), str):
        return None
    heading, newline, rest = item["content"].partition("\n")
    if not newline or heading not in _HEADINGS:
        return None
    start, end = get_conversation_history_wrappers()
    if not (rest.startswith(f"{start}\n") and rest.endswith(f"\n{end}")):
        return None
    body = rest[len(start) + 1 : len(rest) - len(end) - 1]
    parsed = (_read_record(record) for record in _records(body))
    return [entry for entry in parsed if entry is not None]


def _numbered(line: str) -> bool:
    head, dot, _ = line.lstrip().partition(".")
    return bool(dot) and head.isdigit()


def _records(body: str) -> list[str]:
    """The summary's records: a numbered line and the unnumbered lines after it (a message's
    later lines)."""
    records: list[list[str]] = []
    numbered = False
    for line in body.splitlines():
        if not line.strip():
            continue
        starts = _numbered(line)
        if records and numbered and not starts:
            records[-1].append(line.rstrip())
            continue
        records.append([line.strip()])
        numbered = starts
    return ["\n".join(lines) for lines in records]


def _read_record(record: str) -> TResponseInputItem | None:
    text = record.strip()
    if not text:
        return None
    if _numbered(text):
        text = text.partition(".")[2].lstrip()
    as_json = _json_object(text)
    if as_json is not None:
        return _clean(as_json)
    who, colon, content = text.partition(":")
    if not colon:
        # A lone role (older summaries wrote an empty message so); other text is prose.
        if _role_and_name(text)[0] not in _ROLES:
            return None
        who, content = text, ""
    who = who.strip()
    if not who:
        return None
    role, name = _role_and_name(who)
    content = content.strip()
    if content and role not in _ROLES:
        typed = _json_object(content)
        if typed is not None:  # an older ``type: {json}`` line
            typed["type"] = role
            return _clean(typed)
    message: dict[str, Any] = {"role": role}
    if name:
        message["name"] = name
    message["content"] = content
    return message


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    if not isinstance(value, dict):
        return None
    value.pop("provider_data", None)
    return value


def _role_and_name(text: str) -> tuple[str, str | None]:
    """``"user (Alice)"`` -> ``("user", "Alice")``; ``"user"`` -> ``("user", None)``."""
    if text.endswith(")") and "(" in text:
        head, _, name = text[:-1].rpartition("(")
        if name.strip():
            return head.strip() or "developer", name.strip()
    return text or "developer", None
