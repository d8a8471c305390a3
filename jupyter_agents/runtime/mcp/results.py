"""What the model gets from an MCP call's result, and how much of it.

Everything a server sends is untrusted: its text stays text, images must be real inline image
data of the usual types to be shown, a resource's bytes never become a file the model or the
page opens, and content of a type we do not know is named, not passed on. A result is capped as
shell output is: past ``MAX_RESULT_CHARS`` characters the head and the tail are kept with a
note of what was cut between them; an image over ``MAX_IMAGE_BYTES`` becomes a note, and
images past the first ``MAX_IMAGES`` are left out (counted in a note).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any, TypeAlias

from mcp import types as mcp_types

from ..tools.outputs import ToolOutputImage, ToolOutputText
from .untrusted import cap_text, printable

__all__ = [
    "MAX_IMAGES",
    "MAX_IMAGE_BYTES",
    "MAX_RESULT_CHARS",
    "cap_parts",
    "cap_text",
    "model_output",
    "printable",
]

MAX_RESULT_CHARS = 20_000
"""Characters of a result's text the model gets by default (``MCPServer(max_result_chars=)``):
the first and the last half, with ``… N characters cut …`` between them."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""An image larger than this (decoded) is replaced by a note."""
MAX_IMAGES = 20
"""Images of one result the model gets; the rest are counted in a note."""

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
Part: TypeAlias = ToolOutputText | ToolOutputImage


def cap_parts(parts: Sequence[Part], limit: int | None) -> list[Part]:
    """``parts`` with at most ``MAX_IMAGES`` images and ``limit`` characters of text: the
    text is cut as one stream (head and tail kept), and images in the cut part go with it."""
    kept: list[Part] = []
    images = 0
    for part in parts:
        if isinstance(part, ToolOutputImage):
            images += 1
            if images > MAX_IMAGES:
                continue
        kept.append(part)
    extra_images = max(0, images - MAX_IMAGES)
    if extra_images:
        kept.append(
            ToolOutputText(
                f"[{extra_images} more images not shown: at most {MAX_IMAGES} per result]"
            )
        )
    total = sum(len(p.text) for p in kept if isinstance(p, ToolOutputText))
    if limit is None or total <= limit:
        return kept
    return _cut_middle(kept, total, max(1, limit // 2))


def _cut_middle(parts: list[Part], total: int, half: int) -> list[Part]:
    """The parts that fall in the first or the last ``half`` characters of the text, with a
    note between them; an image sits at the position of the text before it."""
    head: list[Part] = []
    tail: list[Part] = []
    dropped_images = 0
    start_of_tail = total - half
    position = 0
    for part in parts:
        if isinstance(part, ToolOutputImage):
            if position < half:
                head.append(part)
            elif position >= start_of_tail:
                tail.append(part)
            else:
                dropped_images += 1
            continue
        end = position + len(part.text)
        if position < half:
            head.append(ToolOutputText(part.text[: half - position]))
        if end > start_of_tail:
            tail.append(ToolOutputText(part.text[max(0, start_of_tail - position) :]))
        position = end
    images = f" and {dropped_images} images" if dropped_images else ""
    note = ToolOutputText(f"… {total - 2 * half:,} characters{images} cut …")
    return [*head, note, *tail]


def model_output(
    result: mcp_types.CallToolResult,
    use_structured_content: bool,
    max_chars: int | None = MAX_RESULT_CHARS,
) -> Any:
    """The model's input for a call's result: a string when it is all text, else a list of
    text and image outputs; capped (see the module docstring)."""
    if use_structured_content and result.structured_content is not None:
        return cap_text(json.dumps(result.structured_content, ensure_ascii=False), max_chars)
    parts = [_block_output(block) for block in result.content or ()]
    if not parts and result.structured_content is not None:
        return cap_text(json.dumps(result.structured_content, ensure_ascii=False), max_chars)
    if all(isinstance(p, ToolOutputText) for p in parts):
        return cap_text(
            "\n".join(p.text for p in parts if isinstance(p, ToolOutputText)), max_chars
        )
    return cap_parts(parts, max_chars)


def _block_output(block: Any) -> Part:
    kind = getattr(block, "type", None)
    if kind == "text":
        return ToolOutputText(str(block.text))
    if kind == "image":
        return _image(str(block.mime_type), str(block.data))
    if kind == "audio":
        size = len(str(block.data)) * 3 // 4
        return ToolOutputText(f"[audio: {printable(str(block.mime_type))}, about {size:,} bytes]")
    if kind == "resource":
        resource = block.resource
        uri, mime = printable(str(resource.uri)), printable(resource.mime_type or "")
        text = getattr(resource, "text", None)
        if text is not None:
            return ToolOutputText(f"[resource {uri}]\n{text}")
        blob = str(getattr(resource, "blob", ""))
        if mime in _IMAGE_TYPES:
            return _image(mime, blob)
        return ToolOutputText(f"[resource {uri}: {mime or 'binary'}, {len(blob) * 3 // 4:,} bytes]")
    if kind == "resource_link":
        described = f": {block.description}" if getattr(block, "description", None) else ""
        return ToolOutputText(f"[resource link {block.name} <{block.uri}>{described}]")
    shown = printable(str(kind), keep_newlines=False)[:40]
    return ToolOutputText(f"[content of type {shown!r} not shown]")


def _image(mime: str, data: str) -> Part:
    """An inline image, only for the usual image types, real base64 and a sane size; else a
    note saying why it is not shown."""
    mime = printable(mime, keep_newlines=False)[:60]
    if mime not in _IMAGE_TYPES:
        return ToolOutputText(f"[image of type {mime} not shown]")
    size = len(data) * 3 // 4
    if size > MAX_IMAGE_BYTES:
        return ToolOutputText(
            f"[{mime} image of about {size:,} bytes not shown: larger than "
            f"{MAX_IMAGE_BYTES:,} bytes]"
        )
    try:
        base64.b64decode(data, validate=True)
    except ValueError:
        return ToolOutputText(f"[{mime} image not shown: its data is not valid base64]")
    return ToolOutputImage(image_url=f"data:{mime};base64,{data}")
