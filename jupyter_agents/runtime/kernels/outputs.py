"""What a kernel sent for one execution, as text and images for the model."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from ..tools.outputs import ToolOutput, ToolOutputImage, ToolOutputText

__all__ = ["Collected", "strip_ansi"]

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.I | re.S)
_TAGS = re.compile(r"<[^>]+>", re.S)
_SPACE = re.compile(r"\s+")
_ROW_END = re.compile(r"</(tr|p|div|h\d|li)\s*>|<br\s*/?>", re.I)
_CELL_END = re.compile(r"</t[dh]\s*>", re.I)
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (tracebacks are coloured)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def html_as_text(markup: str) -> str:
    """An HTML output (such as a table) as plain text: one line per row, cells split by
    spaces; scripts, styles and comments left out. The markup's own line breaks are layout,
    not rows (pandas puts each cell on a line of its own)."""
    flat = _SPACE.sub(" ", _HIDDEN.sub("", markup))
    text = _CELL_END.sub("\t", _ROW_END.sub("\n", flat))
    lines = (" ".join(html.unescape(_TAGS.sub("", line)).split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


@dataclass
class Collected:
    """Outputs in the order they came; text is capped (head and tail kept)."""

    max_chars: int = 20_000
    parts: list[ToolOutput] = field(default_factory=list)
    error: str | None = None
    """``ename: evalue`` when the code raised."""

    def text(self, value: str) -> None:
        """Add text (joined with the text just before it)."""
        if not value:
            return
        if self.parts and isinstance(self.parts[-1], ToolOutputText):
            value = self.parts[-1].text + value
            self.parts[-1] = ToolOutputText(value)
        else:
            self.parts.append(ToolOutputText(value))

    def data(self, bundle: dict[str, Any]) -> None:
        """Add a rich output: an image as an image, else its best text form (Markdown as it
        is, HTML as text, text/plain last when there is HTML: it is often only a repr)."""
        for kind in _IMAGE_TYPES:
            if isinstance(bundle.get(kind), str):
                encoded = "".join(bundle[kind].split())
                self.parts.append(ToolOutputImage(image_url=f"data:{kind};base64,{encoded}"))
                return
        if isinstance(bundle.get("text/markdown"), str):  # its text/plain is an object's repr
            self.text(bundle["text/markdown"].rstrip("\n") + "\n")
        elif isinstance(bundle.get("text/plain"), str) and not bundle.get("text/html"):
            self.text(bundle["text/plain"].rstrip("\n") + "\n")
        elif isinstance(bundle.get("text/html"), str):
            self.text(html_as_text(bundle["text/html"]) + "\n")
        elif isinstance(bundle.get("image/svg+xml"), str):
            self.text(f"[an SVG image of {len(bundle['image/svg+xml']):,} characters]\n")
        elif isinstance(bundle.get("text/plain"), str):
            self.text(bundle["text/plain"].rstrip("\n") + "\n")

    def failed(self, ename: str, evalue: str, traceback: list[str]) -> None:
        """Add an error with its traceback (without colours)."""
        self.error = f"{ename}: {evalue}"
        self.text(strip_ansi("\n".join(traceback)) + "\n")

    def result(self) -> str | list[ToolOutput]:
        """Plain text when there is no image; else the parts. Long text keeps its head and
        tail, with a note of what was cut."""
        parts = [self._capped(p) if isinstance(p, ToolOutputText) else p for p in self.parts]
        if all(isinstance(p, ToolOutputText) for p in parts):
            return "".join(p.text for p in parts if isinstance(p, ToolOutputText))
        return parts

    def _capped(self, part: ToolOutputText) -> ToolOutputText:
        limit = max(self.max_chars // max(1, self._text_parts()), 200)
        if len(part.text) <= limit:
            return part
        half = limit // 2
        cut = len(part.text) - 2 * half
        return ToolOutputText(
            f"{part.text[:half]}\n… {cut:,} characters cut …\n{part.text[-half:]}"
        )

    def _text_parts(self) -> int:
        return sum(isinstance(p, ToolOutputText) for p in self.parts)
