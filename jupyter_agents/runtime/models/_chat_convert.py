"""Converting between Responses API items and Chat Completions messages."""

from __future__ import annotations

import json
from typing import Any

from ..errors import UserError
from ..items import TResponseInputItem
from ._chat_reasoning import replay_fields

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
                {
                    "type": "image_url",
                    "image_url": {"url": url, "detail": part.get("detail", "auto")},
                }
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


def _tool_output(item: TResponseInputItem) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A function_call_output as a tool message, plus the chat parts of its images and files.

    Tool messages carry text only. Attachments travel in one user message placed after the
    last tool message of the turn, since the API wants the tool messages right after the
    assistant's calls.
    """
    output = item.get("output", "")
    if isinstance(output, str):
        return {"role": "tool", "tool_call_id": item["call_id"], "content": output}, []
    texts = [p["text"] for p in output if p.get("type") == "input_text"]
    media = [p for p in output if p.get("type") in ("input_image", "input_file")]
    summary = "\n".join(texts)
    if media:
        note = f"[{len(media)} attachment(s) follow after the tool results]"
        summary = f"{summary}\n{note}" if summary else note
    parts = _text_parts(media) if media else []
    assert isinstance(parts, list)
    return {"role": "tool", "tool_call_id": item["call_id"], "content": summary}, parts


def _tool_call(item: TResponseInputItem) -> dict[str, Any]:
    arguments = item.get("arguments", "")
    return {
        "id": item["call_id"],
        "type": "function",
        "function": {"name": item["name"], "arguments": arguments},
    }


def _attachments_message(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "text", "text": "Tool output attachments:"}, *parts],
    }


def to_chat_messages(
    system_instructions: str | None,
    input: str | list[TResponseInputItem],
    *,
    model: str = "",
    thinking_blocks: bool = False,
) -> list[dict[str, Any]]:
    """Responses API input items as Chat Completions messages for ``model``.

    Consecutive assistant text and function calls merge into one assistant message carrying
    ``tool_calls``. A reasoning item adds to the assistant message after it what the model's
    provider wants back (``_chat_reasoning.replay_fields``: Claude's thinking blocks when
    ``thinking_blocks``, DeepSeek's ``reasoning_content``), and is dropped otherwise.
    """
    messages: list[dict[str, Any]] = []
    if system_instructions:
        messages.append({"role": "system", "content": system_instructions})
    if isinstance(input, str):
        messages.append({"role": "user", "content": input})
        return messages
    assistant: dict[str, Any] | None = None
    attachments: list[dict[str, Any]] = []
    reasoning: dict[str, Any] = {}  # for the next assistant message
    for item in input:
        if attachments and item.get("type") != "function_call_output":
            messages.append(_attachments_message(attachments))
            attachments = []
        kind = item.get("type")
        role = item.get("role")
        if kind == "function_call":
            if assistant is None:
                assistant = {"role": "assistant", "content": None, **reasoning}
                messages.append(assistant)
                reasoning = {}
            assistant.setdefault("tool_calls", []).append(_tool_call(item))
            continue
        if role == "assistant" and kind in ("message", None):
            text = _plain_text(item.get("content", ""))
            assistant = {"role": "assistant", "content": text, **reasoning}
            messages.append(assistant)
            reasoning = {}
            continue
        assistant, reasoning = None, {}
        if kind == "function_call_output":
            message, parts = _tool_output(item)
            messages.append(message)
            attachments.extend(parts)
        elif kind == "reasoning":
            reasoning = replay_fields(item, model, thinking_blocks)
        elif role in ("user", "system", "developer"):
            chat_role = "system" if role == "developer" else role
            messages.append({"role": chat_role, "content": _text_parts(item.get("content", ""))})
        else:
            raise UserError(
                "Chat Completions cannot carry an input item of type "
                f"{kind or role!r}: {json.dumps(item, default=str)[:200]}"
            )
    if attachments:
        messages.append(_attachments_message(attachments))
    return messages
