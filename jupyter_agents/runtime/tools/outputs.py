"""Structured tool outputs (text, images, files) and their conversion for the model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, Union

from typing_extensions import NotRequired, TypedDict

__all__ = [
    "ToolOutput",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "to_model_output",
]


@dataclass(frozen=True)
class ToolOutputText:
    """Text returned by a tool."""

    text: str
    """The text."""

    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolOutputImage:
    """An image returned by a tool, by URL (``data:`` URLs included) or uploaded file id."""

    image_url: str | None = None
    """An ``https:`` or ``data:image/...;base64,`` URL."""

    file_id: str | None = None
    """The id of an uploaded file."""

    detail: Literal["low", "high", "auto"] | None = None
    """How closely the model should look."""

    type: Literal["image"] = "image"

    def __post_init__(self) -> None:
        if not self.image_url and not self.file_id:
            raise ValueError("ToolOutputImage needs image_url or file_id")


@dataclass(frozen=True)
class ToolOutputFileContent:
    """A file returned by a tool: inline data, a URL or an uploaded file id."""

    file_data: str | None = None
    """Base64 data (a ``data:`` URL or plain base64)."""

    file_url: str | None = None
    """A URL the provider can fetch."""

    file_id: str | None = None
    """The id of an uploaded file."""

    filename: str | None = None
    """The file's name, shown to the model."""

    type: Literal["file"] = "file"

    def __post_init__(self) -> None:
        if not (self.file_data or self.file_url or self.file_id):
            raise ValueError("ToolOutputFileContent needs file_data, file_url or file_id")


class ToolOutputTextDict(TypedDict):
    """A tool's text output as a plain dict (the same as ``ToolOutputText``)."""

    type: Literal["text"]
    text: str


class ToolOutputImageDict(TypedDict):
    """A tool's image output as a plain dict (the same as ``ToolOutputImage``)."""

    type: Literal["image"]
    image_url: NotRequired[str]
    file_id: NotRequired[str]
    detail: NotRequired[Literal["low", "high", "auto"]]


class ToolOutputFileContentDict(TypedDict):
    """A tool's file output as a plain dict (the same as ``ToolOutputFileContent``)."""

    type: Literal["file"]
    file_data: NotRequired[str]
    file_url: NotRequired[str]
    file_id: NotRequired[str]
    filename: NotRequired[str]


ToolOutput: TypeAlias = Union[ToolOutputText, ToolOutputImage, ToolOutputFileContent]
"""A structured tool output."""

_FIELDS = {
    "text": ("text",),
    "image": ("image_url", "file_id", "detail"),
    "file": ("file_data", "file_url", "file_id", "filename"),
}


def _from_mapping(value: Mapping[str, Any]) -> ToolOutput | None:
    kind = value.get("type")
    names = _FIELDS.get(kind) if isinstance(kind, str) else None
    if names is None or not set(value) <= {*names, "type"}:
        return None
    try:
        if kind == "text":
            return ToolOutputText(text=str(value["text"])) if "text" in value else None
        if kind == "image":
            return ToolOutputImage(**{k: value[k] for k in names if k in value})
        return ToolOutputFileContent(**{k: value[k] for k in names if k in value})
    except ValueError:
        return None


def _as_structured(value: Any) -> ToolOutput | None:
    if isinstance(value, (ToolOutputText, ToolOutputImage, ToolOutputFileContent)):
        return value
    if isinstance(value, Mapping):
        return _from_mapping(value)
    return None


def _content_part(output: ToolOutput) -> dict[str, Any]:
    if isinstance(output, ToolOutputText):
        return {"type": "input_text", "text": output.text}
    if isinstance(output, ToolOutputImage):
        part: dict[str, Any] = {"type": "input_image", "detail": output.detail or "auto"}
        if output.image_url:
            part["image_url"] = output.image_url
        if output.file_id:
            part["file_id"] = output.file_id
        return part
    part = {"type": "input_file"}
    for name in ("file_data", "file_url", "file_id", "filename"):
        value = getattr(output, name)
        if value:
            part[name] = value
    return part


def to_model_output(value: Any) -> str | list[dict[str, Any]]:
    """Convert a tool's return value into a ``function_call_output`` output.

    A string stays a string. A structured output (or its dict form), or a list of them, becomes
    a list of Responses API content parts. Anything else goes through ``str()``.
    """
    if isinstance(value, str):
        return value
    single = _as_structured(value)
    if single is not None:
        return [_content_part(single)]
    if isinstance(value, (list, tuple)) and value:
        parts = [_as_structured(item) for item in value]
        if all(part is not None for part in parts):
            return [_content_part(part) for part in parts if part is not None]
    return str(value)
