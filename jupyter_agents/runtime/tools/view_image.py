"""``view_image``: the model looks at an image file in the workspace (Codex's tool of that name).

The image goes back to the model as an image input (both wire formats carry images in tool
outputs). Only regular files inside the workspace root are read, reached one folder at a time
without following a symbolic link (a link, even to a file inside, and a FIFO are refused; a
folder swapped for a link between a check and the read leads nowhere), only PNG, JPEG, GIF and
WebP (recognised by their first bytes, not by the name), and only up to a size.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

from ..context import ToolContext
from ..errors import UserError
from ..nofollow import NotRead, TooLarge, read_regular
from .function.function_tool import FunctionTool
from .outputs import ToolOutputImage

__all__ = ["DEFAULT_MAX_IMAGE_BYTES", "image_type", "view_image_tool"]

DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest image file ``view_image`` reads (5 MiB)."""

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "The image file, relative to the workspace (PNG, JPEG, GIF or WebP).",
        }
    },
    "required": ["path"],
    "additionalProperties": False,
}


def image_type(head: bytes) -> str | None:
    """The MIME type of an image from its first bytes (PNG, JPEG, GIF, WebP), or None."""
    for signature, mime in _SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class _Refused(Exception):
    """A request the model is told about (the file stays unread)."""


def _relative(root: Path, requested: str) -> str:
    """``requested`` as a path inside ``root`` (``/``-separated), read as words only: no
    link is looked at here."""
    if not requested or "\x00" in requested:
        raise _Refused("Give the path of an image file in the workspace.")
    candidate = Path(requested)
    if candidate.is_absolute():
        if not candidate.is_relative_to(root):
            raise _Refused(
                f"{requested!r} is outside the workspace; only files under it can be viewed."
            )
        candidate = candidate.relative_to(root)
    relative = os.path.normpath(candidate)
    if relative == "." or relative == ".." or relative.startswith("../"):
        raise _Refused(
            f"{requested!r} is outside the workspace; only files under it can be viewed."
        )
    return relative


def _read(root: Path, requested: str, max_bytes: int) -> ToolOutputImage:
    relative = _relative(root, requested)
    try:  # one folder at a time from the root, never following a link, nor opening a FIFO
        data = read_regular(root, relative, max_bytes)
    except TooLarge:
        raise _Refused(
            f"{requested!r} was not read: images up to {max_bytes:,} bytes can be viewed."
        ) from None
    except NotRead as e:
        why = str(e)
        if why.startswith("it is gone"):
            why = "there is no such file in the workspace"
        raise _Refused(f"{requested!r} was not read: {why}.") from None
    mime = image_type(data[:16])
    if mime is None:
        raise _Refused(f"{requested!r} is not a PNG, JPEG, GIF or WebP image.")
    encoded = base64.b64encode(data).decode("ascii")
    return ToolOutputImage(image_url=f"data:{mime};base64,{encoded}", detail="auto")


def view_image_tool(
    root: str | os.PathLike[str] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_IMAGE_BYTES,
    name: str = "view_image",
    needs_approval: Any = False,
) -> FunctionTool:
    """A tool that shows the model an image file under ``root`` (default: the current folder).

    Args:
        root: The workspace; paths outside it (``..``, absolute, through symlinks) are refused.
        max_bytes: The largest file read.
        name: The tool's name.
        needs_approval: As for any tool: a bool, or ``(run_context, arguments, call_id) -> bool``.

    Raises:
        UserError: ``root`` is not a folder, or ``max_bytes`` is not a positive int.
    """
    folder = Path(root if root is not None else os.getcwd()).resolve()
    if not folder.is_dir():
        raise UserError(f"view_image_tool: the workspace {str(folder)!r} is not a folder.")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise UserError(f"view_image_tool: max_bytes must be a positive int, got {max_bytes!r}.")

    async def invoke(_ctx: ToolContext[Any], arguments: str) -> Any:
        try:
            requested = json.loads(arguments or "{}").get("path", "")
        except (ValueError, AttributeError):
            requested = ""
        try:
            return await asyncio.to_thread(_read, folder, str(requested), max_bytes)
        except _Refused as refused:
            return str(refused)
        except OSError as e:
            return f"{requested!r} could not be read: {e.strerror or e}."

    return FunctionTool(
        name=name,
        description=(
            "Look at an image file in the workspace (PNG, JPEG, GIF or WebP), for example a "
            "plot or a screenshot a command saved. Give its path relative to the workspace."
        ),
        params_json_schema=_SCHEMA,
        on_invoke_tool=invoke,
        needs_approval=needs_approval,
        read_only=True,
    )
