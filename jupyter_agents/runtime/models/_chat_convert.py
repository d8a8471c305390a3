"""Converting between Responses API items and Chat Completions messages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..errors import UserError
from ..items import TResponseInputItem

__all__ = ["to_chat_messages"]


def _text_parts(content: Any) -> str | list[dict[str, Any]]:
    """User/system content: a string stays a string; input parts become chat parts."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": part["text"]})
        elif kind == "input_image":
            url = part.get("image_url")
            if not url:
                raise UserError("Chat Completions needs image_url for images (not file_id).")
            parts.append(
                {"type": "image_url", "image_url": {"url": url, "detail": part.get("detail", "auto")}}
            )
        elif kind == "input_file":
            file: dict[str, Any] = {}
            for key in ("file_data", "file_id", "filename"):
                if part.get(key):
                    file[key] = part[key]
            parts.append({"type": "file", "file": file})
        else:
            raise UserError(f"Chat Completions cannot carry a content part of type {kind!r}.")
    return parts


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") or part.get("refusal", "")
        for part in content
        if part.get("type") in ("output_text", "input_text", "text", "refusal")
    )


def _tool_output(item: TResponseInputItem) -> Iterator[dict[str, Any]]:
    """A function_call_output: a tool message, plus a user message for images and files."""
    output = item.get("output", "")
    if isinstance(output, str):
        yield {"role": "tool", "tool_call_id": item["call_id"], "content": output}
        return
    texts = [p["text"] for p in output if p.get("type") == "input_text"]
    media = [p for p in output if p.get("type") in ("input_image", "input_file")]
    summary = "\n".join(texts)
    if media:
        summary = (summary + "\n" if summary else "") + (
            f"[{len(media)} attachment(s) follow in the next message]"
        )
    yield {"role": "tool", "tool_call_id": item["call_id"], "content": summary}
    if media:
        parts = _text_parts(media)
        yield {"role": "user", "content": [{"type": "text", "text": "Tool output attachments:"}, *parts]}


def to_chat_messages(
    system_instructions: str | None, input: str | list[TResponseInputItem]
) -> list[dict[str, Any]]:
    """Responses API input items as Chat Completions messages.

    Consecutive assistant text and function calls merge into one assistant message carrying
    ``tool_calls``; reasoning items are dropped (Chat Completions has no place for them).
    """
    messages: list[dict[str, Any]] = []
    if system_instructions:
        messages.append({"role": "system", "content": system_instructions})
    if isinstance(input, str):
        messages.append({"role": "user", "content": input})
        return messages
    assistant: dict[str, Any] | None = None
    for item in input:
        kind = item.get("type")
        role = item.get("role")
        if kind == "function_call":
            if assistant is None:
                assistant = {"role": "assistant", "content": None}
                messages.append(assistant)
            assistant.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {"name": item["name"], "arguments": item.get("arguments", "")},
                }
            )
            continue
        if kind == "message" and role == "assistant" or (kind is None and role == "assistant"):
            assistant = {"role": "assistant", "content": _plain_text(item.get("content", ""))}
            messages.append(assistant)
            continue
        assistant = None
        if kind == "function_call_output":
            messages.extend(_tool_output(item))
        elif kind == "reasoning":
            continue
        elif role in ("user", "system", "developer"):
            chat_role = "system" if role == "developer" else role
            messages.append({"role": chat_role, "content": _text_parts(item.get("content", ""))})
        else:
            raise UserError(
                "Chat Completions cannot carry an input item of type "
                f"{kind or role!r}: {json.dumps(item, default=str)[:200]}"
            )
    return messages
