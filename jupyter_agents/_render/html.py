"""Markdown and HTML from untrusted text: ``markdown-it-py`` (no raw HTML) then ``nh3``."""

from __future__ import annotations

import html as _html
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import nh3

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["MAX_CHARS", "escape_html", "markdown_to_html", "sanitize_html"]

MAX_CHARS = 100_000
"""Longest text rendered as Markdown; the rest is cut with a note (the full text stays in the
run's result)."""

_TAGS = {
    "a", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th",
    "thead", "tr", "ul",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "td": {"align"},
    "th": {"align"},
}
_SCHEMES = {"http", "https", "mailto"}


def escape_html(text: Any, quote: bool = False) -> str:
    """``text`` as HTML text (``<``, ``>`` and ``&`` escaped); ``quote=True`` also escapes
    quotes, for attribute values."""
    return _html.escape(str(text), quote=quote)


def sanitize_html(fragment: str) -> str:
    """An HTML fragment with everything outside the allowlist removed: no scripts, styles,
    event handlers, images, frames, forms or SVG; links only to http(s) and mailto, opening in
    a new tab without referrer."""
    return nh3.clean(
        fragment,
        tags=_TAGS,
        clean_content_tags={"script", "style", "template", "svg", "math", "iframe", "object"},
        attributes=_ATTRIBUTES,
        url_schemes=_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        set_tag_attribute_values={"a": {"target": "_blank"}},
        url_relative="deny",
        strip_comments=True,
    )


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # (50 ms: imported when text is first rendered)

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])

    def image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Never an <img>: a remote image is a request the user did not ask for.
        token = tokens[idx]
        alt = "".join(child.content for child in token.children or [])
        src = token.attrGet("src") or ""
        shown = f"🖼 {alt}" if alt else "🖼 image"
        return f"{escape_html(shown)} ({escape_html(src)})" if src else escape_html(shown)

    md.add_render_rule("image", image)
    return md


def markdown_to_html(text: str, limit: int = MAX_CHARS) -> str:
    """Untrusted Markdown as safe HTML (cut at ``limit`` characters, with a note)."""
    text = str(text)
    note = ""
    if len(text) > limit:
        note = f"<p><em>… {len(text) - limit:,} more characters not shown here.</em></p>"
        text = text[:limit]
    return sanitize_html(_parser().render(text)) + note
