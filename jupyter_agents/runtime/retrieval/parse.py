"""Documents as text sections that know where they come from: a page, a heading, a cell.

Plain text, Markdown (sections by heading), HTML (headings kept; scripts and styles dropped),
notebooks (one section per cell), PDF (one section per page, with ``pypdf``) and Word documents
(sections by heading style, with ``python-docx``). The last two are optional:
``pip install 'jupyter-agents[docs-parsers]'``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ..errors import UserError

__all__ = ["SUFFIXES", "Section", "parse_file"]

SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm", ".ipynb", ".pdf", ".docx"})
"""The kinds of files a document store reads."""

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Section:
    """Text from one place in a document."""

    text: str
    page: int | None = None
    """The page (PDF), counting from 1."""
    heading: str | None = None
    """The heading path (``Install > Linux``) or the notebook cell (``cell 3``)."""


def parse_file(path: Path) -> list[Section]:
    """The sections of ``path``; a :class:`UserError` for a kind it cannot read."""
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return _markdown(path.read_text(encoding="utf-8", errors="replace"))
    if suffix in (".html", ".htm"):
        return _html(path.read_text(encoding="utf-8", errors="replace"))
    if suffix == ".ipynb":
        return _notebook(path)
    if suffix == ".pdf":
        return _pdf(path)
    if suffix == ".docx":
        return _docx(path)
    if suffix == ".txt":
        return [Section(path.read_text(encoding="utf-8", errors="replace"))]
    raise UserError(f"{path.name}: documents of kind {suffix!r} are not read.")


def _with_headings(lines: list[tuple[int, str] | str]) -> list[Section]:
    """Sections from text lines and ``(level, heading)`` markers."""
    sections: list[Section] = []
    trail: list[tuple[int, str]] = []
    body: list[str] = []

    def flush() -> None:
        text = "\n".join(body).strip()
        if text:
            sections.append(Section(text, heading=" > ".join(t for _, t in trail) or None))
        body.clear()

    for line in lines:
        if isinstance(line, tuple):
            flush()
            level, title = line
            trail[:] = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, title)]
        else:
            body.append(line)
    flush()
    return sections


def _markdown(text: str) -> list[Section]:
    lines: list[tuple[int, str] | str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        found = None if fenced else _HEADING.match(line)
        lines.append((len(found.group(1)), found.group(2)) if found else line)
    return _with_headings(lines)


class _HTMLText(HTMLParser):
    BLOCKS = frozenset({"p", "div", "li", "tr", "br", "section", "article", "table", "pre"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str] | str] = []
        self._skip = 0
        self._heading: int | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "noscript", "template"):
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self._end_line()
            self._heading = int(tag[1])
        elif tag in self.BLOCKS:
            self._end_line()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "noscript", "template"):
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            title = " ".join("".join(self._text).split())
            self._text.clear()
            if title:
                self.lines.append((self._heading, title))
            self._heading = None
        elif tag in self.BLOCKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._text.append(data)

    def _end_line(self) -> None:
        if self._heading is not None:
            return
        line = " ".join("".join(self._text).split())
        self._text.clear()
        if line:
            self.lines.append(line)

    def close(self) -> None:
        super().close()
        self._end_line()


def _html(markup: str) -> list[Section]:
    parser = _HTMLText()
    parser.feed(markup)
    parser.close()
    return _with_headings(parser.lines)


def _notebook(path: Path) -> list[Section]:
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (ValueError, AttributeError):
        raise UserError(f"{path.name}: not a notebook (invalid JSON).") from None
    sections = []
    for number, cell in enumerate(cells, start=1):
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        if text.strip() and cell.get("cell_type") in ("markdown", "code"):
            sections.append(Section(text.strip(), heading=f"cell {number}"))
    return sections


def _missing(what: str, package: str) -> UserError:
    return UserError(f"Reading {what} needs {package}: pip install 'jupyter-agents[docs-parsers]'.")


def _pdf(path: Path) -> list[Section]:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise _missing("PDF files", "pypdf") from None
    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as e:  # a damaged or encrypted file
        raise UserError(f"{path.name}: cannot read this PDF ({e}).") from None
    return [Section(text.strip(), page=n) for n, text in enumerate(pages, 1) if text.strip()]


def _docx(path: Path) -> list[Section]:
    try:
        import docx
    except ImportError:
        raise _missing("Word documents", "python-docx") from None
    try:
        document = docx.Document(str(path))
    except Exception as e:
        raise UserError(f"{path.name}: cannot read this Word document ({e}).") from None
    lines: list[tuple[int, str] | str] = []
    for paragraph in document.paragraphs:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = re.fullmatch(r"Heading ([1-9])", style)
        if level and paragraph.text.strip():
            lines.append((int(level.group(1)), paragraph.text.strip()))
        elif paragraph.text.strip():
            lines.append(paragraph.text)
    return _with_headings(lines)
