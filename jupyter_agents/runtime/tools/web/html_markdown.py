"""HTML to Markdown for a model to read, on the standard library's ``html.parser``.

Headings, paragraphs, lists, links, emphasis, code blocks, quotes and tables become Markdown;
scripts, styles, navigation, embedded objects, form controls and elements marked hidden are
dropped. The result is text for a model, never rendered by us, so it is not escaped.

The page is untrusted and the parser is not linear on crafted input (unclosed comments and
tags make the standard library's ``HTMLParser`` quadratic when it closes). So the parser is fed
in slices and never closed: what is left unparsed at the end is an unclosed construct, which a
browser would not show either; the feeding stops at a time budget; the tree is at most
``MAX_DEPTH`` deep and ``MAX_ELEMENTS`` large (deeper or further tags are read as their text).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urljoin

__all__ = ["MAX_DEPTH", "MAX_ELEMENTS", "Converted", "clean_text", "html_to_markdown"]

MAX_DEPTH = 100
"""Elements nested deeper than this are read as part of their parent."""
MAX_ELEMENTS = 100_000
"""Elements past this many are read as their text only."""
_SLICE = 64 * 1024
_IMPLIED_REACH = 20  # how far down the open elements a start tag looks for one it closes

_DROPPED = frozenset({"script", "style", "noscript", "template", "nav", "svg", "math", "iframe",
                      "frame", "frameset", "object", "embed", "canvas", "audio", "video", "head",
                      "title", "button", "select", "textarea", "input"})  # fmt: skip
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr", "keygen"})  # fmt: skip
_BLOCK = frozenset({"address", "article", "aside", "blockquote", "body", "center", "dd",
                    "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure",
                    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
                    "hr", "html", "li", "main", "menu", "ol", "p", "pre", "section", "summary",
                    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"})  # fmt: skip
_IMPLIED_END = {  # a start tag that closes an open element, up to a boundary
    "li": ({"li"}, {"ul", "ol", "menu"}),
    "dt": ({"dt", "dd"}, {"dl"}),
    "dd": ({"dt", "dd"}, {"dl"}),
    "tr": ({"tr"}, {"table"}),
    "td": ({"td", "th"}, {"tr", "table"}),
    "th": ({"td", "th"}, {"tr", "table"}),
    "option": ({"option"}, {"select"}),
}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_LINK_SCHEMES = ("http:", "https:", "mailto:")


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    children: list[_Element | str] = field(default_factory=list)


@dataclass(frozen=True)
class Converted:
    """A page as Markdown."""

    markdown: str
    """The page's text as Markdown."""
    title: str
    """The ``<title>``, or empty."""
    partial: bool
    """Reading the HTML was stopped by the time budget: the end of the page is missing."""


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Element("#root", {})
        self.stack = [self.root]
        self.elements = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.elements >= MAX_ELEMENTS:
            return
        self.elements += 1
        self._close_implied(tag)
        element = _Element(tag, {k: v or "" for k, v in attrs[:50]})
        self.stack[-1].children.append(element)
        if tag not in _VOID and len(self.stack) < MAX_DEPTH:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return  # an end tag with no open element is ignored, as browsers do

    def handle_data(self, data: str) -> None:
        children = self.stack[-1].children
        if children and isinstance(children[-1], str):
            children[-1] += data
        else:
            children.append(data)

    def _close_implied(self, tag: str) -> None:
        if tag in _IMPLIED_END:
            closes, boundary = _IMPLIED_END[tag]
        elif tag in _BLOCK:
            closes, boundary = {"p"}, {"table", "td", "th", "caption", "button", "template"}
        else:
            return
        for depth in range(len(self.stack) - 1, max(0, len(self.stack) - _IMPLIED_REACH), -1):
            current = self.stack[depth].tag
            if current in closes:
                del self.stack[depth:]
                return
            if current in boundary:
                return


def _parse(html: str, seconds: float) -> tuple[_TreeBuilder, bool]:
    """The tree of ``html``, fed in slices within ``seconds``; True when time ran out."""
    builder = _TreeBuilder()
    deadline = time.monotonic() + seconds
    for start in range(0, len(html), _SLICE):
        if time.monotonic() > deadline:
            return builder, True
        builder.feed(html[start : start + _SLICE])
    leftover = builder.rawdata  # text held back for a character reference, or an unclosed tag
    if leftover and not leftover.startswith("<"):
        builder.handle_data(unescape(leftover))
    return builder, False


def _hidden(element: _Element) -> bool:
    attrs = element.attrs
    return (
        element.tag in _DROPPED
        or "hidden" in attrs
        or attrs.get("aria-hidden", "").strip().lower() == "true"
        or bool(_HIDDEN_STYLE.search(attrs.get("style", "")))
    )


def _fence(text: str, least: int = 3) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(least, longest + 1)


def _text_of(element: _Element) -> str:
    """Every text under ``element``, as written (for ``pre`` and titles)."""
    parts: list[str] = []
    for child in element.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.tag == "br":
            parts.append("\n")
        elif not _hidden(child):
            parts.append(_text_of(child))
    return "".join(parts)


class _Renderer:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def blocks(self, element: _Element) -> list[str]:
        """``element``'s children as Markdown blocks (paragraphs, headings, lists ...)."""
        out: list[str] = []
        inline: list[str] = []

        def flush() -> None:
            text = _tidy_lines("".join(inline))
            if text:
                out.append(text)
            inline.clear()

        for child in element.children:
            if isinstance(child, str):
                inline.append(_SPACES.sub(" ", child))
            elif _hidden(child):
                continue
            elif child.tag in _BLOCK:
                flush()
                out.extend(self.block(child))
            else:
                inline.append(self.inline(child))
        flush()
        return out

    def block(self, element: _Element) -> list[str]:
        tag = element.tag
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = " ".join(self.inline_of(element).split())
            return [f"{'#' * int(tag[1])} {text}"] if text else []
        if tag == "pre":
            return [self.code_block(element)]
        if tag == "blockquote":
            inner = "\n\n".join(self.blocks(element))
            return ["\n".join(f"> {line}".rstrip() for line in inner.split("\n"))] if inner else []
        if tag in ("ul", "ol", "menu", "li"):
            return self.list_block(element)
        if tag == "table":
            return self.table(element)
        if tag == "hr":
            return ["---"]
        return self.blocks(element)

    def inline_of(self, element: _Element) -> str:
        parts: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                parts.append(_SPACES.sub(" ", child))
            elif not _hidden(child):
                parts.append(self.inline(child))
        return "".join(parts)

    def inline(self, element: _Element) -> str:
        tag = element.tag
        if tag == "br":
            return "\n"
        if tag in _BLOCK:  # a block inside an inline element: its words, on their own
            return " " + " ".join("\n".join(self.block(element)).split()) + " "
        if tag == "img":
            return self.image(element)
        text = self.inline_of(element)
        if tag == "a":
            return self.link(element, text)
        if tag in ("code", "kbd", "samp", "tt") and text.strip():
            fence = _fence(text, 1)
            pad = " " if text.strip().startswith("`") or text.strip().endswith("`") else ""
            return f"{fence}{pad}{text.strip()}{pad}{fence}"
        for tags, mark in ((("strong", "b"), "**"), (("em", "i"), "*")):
            if tag in tags and text.strip():
                lead, core, trail = _split_spaces(text)
                return f"{lead}{mark}{core}{mark}{trail}"
        return text

    def link(self, element: _Element, text: str) -> str:
        href = element.attrs.get("href", "").strip()
        label = " ".join(text.split())
        url = urljoin(self.base_url, href) if href else ""
        if not url.lower().startswith(_LINK_SCHEMES) or href.startswith("#"):
            return text
        if not label:
            return ""
        lead, _, trail = _split_spaces(text)
        return f"{lead}[{label}]({url.replace(' ', '%20').replace(')', '%29')}){trail}"

    def image(self, element: _Element) -> str:
        alt = " ".join(element.attrs.get("alt", "").split())
        src = urljoin(self.base_url, element.attrs.get("src", "").strip())
        if not alt:
            return ""
        if src.lower().startswith(("http:", "https:")):
            return f"![{alt}]({src.replace(' ', '%20').replace(')', '%29')})"
        return f"[image: {alt}]"

    def code_block(self, element: _Element) -> str:
        code = _text_of(element).removeprefix("\n").rstrip()
        classes = element.attrs.get("class", "")
        for child in element.children:
            if isinstance(child, _Element) and child.tag == "code":
                classes += " " + child.attrs.get("class", "")
        found = re.search(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)", classes)
        fence = _fence(code)
        return f"{fence}{found.group(1) if found else ''}\n{code}\n{fence}"

    def list_block(self, element: _Element) -> list[str]:
        if element.tag == "li":  # an item outside a list
            return self.item("- ", element)
        ordered = element.tag == "ol"
        try:
            number = max(0, min(int(element.attrs.get("start", "1")), 10**9))
        except ValueError:
            number = 1
        lines: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                if child.strip():
                    lines.extend(self.item("- ", _Element("li", {}, [child])))
                continue
            if _hidden(child):
                continue
            if child.tag in ("ul", "ol", "menu"):  # a list straight inside a list
                lines.extend("  " + line if line else line for line in self.list_block(child))
                continue
            marker = f"{number}. " if ordered else "- "
            lines.extend(self.item(marker, child))
            number += 1
        return ["\n".join(lines)] if lines else []

    def item(self, marker: str, element: _Element) -> list[str]:
        """One list item: its blocks, the first after ``marker``, the rest indented under it."""
        text = "\n".join(self.blocks(element))
        if not text:
            return []
        indent = " " * len(marker)
        first, *rest = text.split("\n")
        return [marker + first, *((indent + line) if line else line for line in rest)]

    def table(self, element: _Element) -> list[str]:
        rows = list(_rows(element))
        cells = [[c for c in row if not _hidden(c)] for row in rows]
        cells = [row for row in cells if row]
        width = max((len(row) for row in cells), default=0)
        layout = width < 2 or len(cells) < 2 or any(_has_blocks(c) for row in cells for c in row)
        if layout:  # a table for layout: its cells' contents, one after another
            return [b for row in cells for cell in row for b in self.blocks(cell)]
        text = [[_cell_text(self.inline_of(c)) for c in row] for row in cells]
        text = [row + [""] * (width - len(row)) for row in text]
        lines = ["| " + " | ".join(row) + " |" for row in text]
        lines.insert(1, "|" + " --- |" * width)
        return ["\n".join(lines)]


def _rows(table: _Element) -> list[list[_Element]]:
    """The rows of ``table`` (in ``thead``, ``tbody``, ``tfoot`` or directly), not those of
    tables inside it; each row's cells."""
    rows: list[list[_Element]] = []
    for child in table.children:
        if not isinstance(child, _Element) or _hidden(child):
            continue
        if child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(_rows(child))
        elif child.tag == "tr":
            rows.append(
                [c for c in child.children if isinstance(c, _Element) and c.tag in ("td", "th")]
            )
    return rows


def _has_blocks(cell: _Element) -> bool:
    return any(
        isinstance(c, _Element) and c.tag in _BLOCK and c.tag != "br" and not _hidden(c)
        for c in cell.children
    )


def _cell_text(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _split_spaces(text: str) -> tuple[str, str, str]:
    core = text.strip()
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return lead, core, trail


def _tidy_lines(text: str) -> str:
    """Inline text as lines: runs of spaces made one, each line stripped, empty ones dropped."""
    lines = (re.sub(r" {2,}", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _title(root: _Element) -> str:
    stack: list[_Element] = [root]
    while stack:
        element = stack.pop()
        if element.tag == "title":
            return " ".join(_text_of(element).split())
        if element.tag in ("svg", "math"):
            continue
        stack.extend(reversed([c for c in element.children if isinstance(c, _Element)]))
    return ""


def clean_text(text: str) -> str:
    """``text`` with its line ends made ``\\n`` and without control characters (but tab and
    newline) or the marks that reorder or hide text (bidi overrides and isolates)."""
    return _UNPRINTABLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def html_to_markdown(html: str, base_url: str = "", *, seconds: float = 5.0) -> Converted:
    """``html`` as Markdown, links made absolute against ``base_url``.

    Args:
        html: The page.
        base_url: The page's address (a ``<base href>`` in the page is not followed).
        seconds: How long reading the HTML may take; the rest of a page that takes longer
            is left out (``Converted.partial``).
    """
    builder, partial = _parse(clean_text(html), seconds)
    markdown = "\n\n".join(_Renderer(base_url).blocks(builder.root))
    return Converted(re.sub(r"\n{3,}", "\n\n", markdown).strip(), _title(builder.root), partial)
