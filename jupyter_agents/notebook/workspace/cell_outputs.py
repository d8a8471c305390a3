"""A notebook cell as a model reads it: its version (what an edit must name), a one-line summary
of its outputs (``text: "…"``, ``image 640x480``, ``DataFrame 1000x12``, ``error: KeyError``),
and its outputs as model content (text capped head and tail, images as images, HTML tables as
rows of text, errors without terminal colours).

Outputs are nbformat output dicts (``stream``, ``display_data``, ``execute_result``,
``error``), as a notebook document or a frontend holds them; anything malformed in them is
skipped, never raised.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ...runtime.kernels.outputs import Collected, strip_ansi
from ...runtime.tools.outputs import ToolOutput

__all__ = ["cell_source", "cell_version", "model_outputs", "outputs_summary"]

SUMMARY_CHARS = 160
"""The longest one-line summary."""

_SHAPE_HTML = re.compile(r"([\d,]+) rows × ([\d,]+) columns")
_SHAPE_TEXT = re.compile(r"\[([\d,]+) rows x ([\d,]+) columns\]")
_BODY = re.compile(r"<tbody>(.*?)</tbody>", re.S | re.I)
_HEAD_ROW = re.compile(r"<thead>\s*<tr[^>]*>(.*?)</tr>", re.S | re.I)


def cell_source(cell: Mapping[str, Any]) -> str:
    """A cell's source as one string (nbformat may keep it as a list of lines)."""
    source = cell.get("source")
    return "".join(map(str, source)) if isinstance(source, list) else str(source or "")


def cell_version(source: str) -> str:
    """The version of a cell's source an edit must name: a short hash of it."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def model_outputs(outputs: Iterable[Any], max_chars: int = 8000) -> str | list[ToolOutput]:
    """The outputs as model content: plain text when there is no image, else text and images
    in order; long text keeps its head and tail."""
    collected = Collected(max_chars)
    for output in outputs:
        if not isinstance(output, Mapping):
            continue
        kind = output.get("output_type")
        if kind == "stream" and isinstance(text := _text(output.get("text")), str):
            collected.text(strip_ansi(text))
        elif kind in ("display_data", "execute_result") and isinstance(output.get("data"), dict):
            collected.data({k: _text(v) for k, v in output["data"].items()})
        elif kind == "error":
            traceback = output.get("traceback")
            lines = [str(t) for t in traceback] if isinstance(traceback, list) else []
            collected.failed(str(output.get("ename", "")), str(output.get("evalue", "")), lines)
    return collected.result()


def outputs_summary(outputs: Iterable[Any]) -> str:
    """One line saying what a cell's outputs are ("" for none)."""
    pieces = [p for o in outputs if isinstance(o, Mapping) and (p := _one(o))]
    line = "; ".join(pieces)
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def _one(output: Mapping[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "error":
        return f"error: {output.get('ename', '?')}"
    if kind == "stream":
        return _text_head(_text(output.get("text")))
    data = output.get("data")
    if not isinstance(data, Mapping):
        return ""
    for mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
        if isinstance(data.get(mime), (str, list)):
            size = _png_size(_text(data[mime])) if mime == "image/png" else None
            return f"image {size[0]}x{size[1]}" if size else f"image ({mime.split('/')[1]})"
    html, plain = _text(data.get("text/html")), _text(data.get("text/plain"))
    shape = _frame_shape(html, plain)
    if shape is not None:
        return f"DataFrame {shape[0]}x{shape[1]}"
    if plain:
        return _text_head(plain)
    if html:
        return "HTML"
    return ""


def _text(value: Any) -> str:
    """nbformat keeps multi-line strings as lists of lines."""
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def _text_head(text: str) -> str:
    lines = [line.strip() for line in strip_ansi(text).splitlines() if line.strip()]
    if not lines:
        return ""
    head = lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return f"text: {head!r}{more}"


def _png_size(encoded: str) -> tuple[int, int] | None:
    """Width and height from a base64 PNG's header (no image library)."""
    try:
        head = base64.b64decode("".join(encoded.split())[:44], validate=False)
    except (binascii.Error, ValueError):
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _frame_shape(html: str, plain: str) -> tuple[str, str] | None:
    """A pandas DataFrame's rows and columns, from its HTML or text form."""
    for pattern, text in ((_SHAPE_HTML, html), (_SHAPE_TEXT, plain)):
        found = pattern.search(text)
        if found:
            return found.group(1).replace(",", ""), found.group(2).replace(",", "")
    if 'class="dataframe"' not in html:
        return None
    body, header = _BODY.search(html), _HEAD_ROW.search(html)
    if body is None or header is None:
        return None
    rows = len(re.findall(r"<tr\b", body.group(1), re.I))
    columns = len(re.findall(r"<th\b", header.group(1), re.I)) - 1  # the index's header cell
    return str(rows), str(max(columns, 0))
