"""One sanitiser for every output path: model, tool and server text never becomes live HTML.

Markdown is rendered by ``markdown-it-py`` with raw HTML turned off, then cleaned by ``nh3`` with
a strict allowlist (``.html``). What must be Markdown (``text/markdown`` outputs, which
JupyterLab renders without sanitising) is that sanitised HTML packed into one inert HTML block
(``.markdown``). No image ever loads: images are shown as their alt text and address.
"""

from __future__ import annotations

from .html import MAX_CHARS, escape_html, markdown_to_html, sanitize_html
from .markdown import escape_markdown, inert_markdown

__all__ = [
    "MAX_CHARS",
    "escape_html",
    "escape_markdown",
    "inert_markdown",
    "markdown_to_html",
    "sanitize_html",
]
