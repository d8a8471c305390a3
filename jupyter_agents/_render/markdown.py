"""Markdown that JupyterLab's renderer (trusted, unsanitised) cannot turn into anything live."""

from __future__ import annotations

import re
from typing import Any

from .html import MAX_CHARS, markdown_to_html

__all__ = ["escape_markdown", "inert_markdown"]

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def inert_markdown(text: str, limit: int = MAX_CHARS) -> str:
    """Untrusted Markdown for a ``text/markdown`` output.

    The text is rendered and sanitised to HTML first (``markdown_to_html``), then emitted as
    a single HTML block on one line: CommonMark and marked pass an HTML block through as it is
    and end it only at a blank line, so nothing inside is parsed as Markdown again (no image,
    link or raw HTML can appear). Newlines become ``&#10;`` so code blocks keep their lines.
    """
    html = markdown_to_html(text, limit)
    return '<div class="jupyter-agents-md">' + html.replace("\n", "&#10;") + "</div>"


def escape_markdown(text: Any) -> str:
    """Short untrusted text (a name, a label) as literal Markdown text on one line."""
    flat = re.sub(r"\s+", " ", str(text)).replace("&", "&amp;")
    return _SPECIAL.sub(r"\\\1", flat)
