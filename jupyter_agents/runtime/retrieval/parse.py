"""Documents as text sections that know where they come from: a page, a heading, a cell.

Plain text, Markdown (sections by heading), HTML (headings kept; scripts and styles dropped),
notebooks (one section per cell), PDF (one section per page, with ``pypdf``) and Word documents
(sections by heading style, with ``python-docx``). The last two are optional:
``pip install 'jupyter-agents[docs-parsers]'``.

Parsing works on a file's bytes (read once, see ``files.read_document``) within
``DocumentLimits``: a Word document's zip is measured before it is opened, a PDF's pages
are counted before any is read, and text stops being extracted once there is more than the
passages kept would hold. Text files may be UTF-8 or, with a byte order mark, UTF-16 or UTF-32.
"""

from __future__ import annotations

import codecs
import importlib.util
import io
import json
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from ..errors import UserError
from .limits import DocumentLimits, format_size

__all__ = ["ISOLATED", "SUFFIXES", "Parsed", "Section", "check_parser", "parse_document"]

SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm", ".ipynb", ".pdf", ".docx"})
"""The kinds of files a document store reads."""
ISOLATED = frozenset({".html", ".htm", ".pdf", ".docx"})
"""Kinds whose parser is not this module's own linear code (the standard library's HTML
parser, ``pypdf``, ``python-docx`` and ``lxml``): a store parses them in a child process
with a time limit (see ``worker``)."""

_PACKAGES = {
    ".pdf": ("pypdf", "PDF files", "pypdf"),
    ".docx": ("docx", "Word documents", "python-docx"),
}
_BOMS = (  # longest first: a UTF-32 LE mark starts like a UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAX_ZIP_MEMBERS = 10_000


@dataclass(frozen=True)
class Section:
    """Text from one place in a document."""

    text: str
    page: int | None = None
    """The page (PDF), counting from 1."""
    heading: str | None = None
    """The heading path (``Install > Linux``) or the notebook cell (``cell 3``)."""


@dataclass
class Parsed:
    """A document's sections, and what a reader of the index should know about them."""

    sections: list[Section]
    notes: list[str] = field(default_factory=list)
    """Such as: not UTF-8 (bytes replaced), text cut short."""


def parse_document(
    suffix: str, data: bytes, limits: DocumentLimits | None = None, max_chars: int | None = None
) -> Parsed:
    """The sections of a document of kind ``suffix`` (``.md``, ...) whose bytes are ``data``;
    a ``UserError`` saying why for one it cannot or will not read. ``max_chars``: text
    beyond it is not needed (PDF pages stop being read)."""
    limits = limits or DocumentLimits()
    suffix = suffix.lower()
    if suffix == ".ipynb":
        return Parsed(_notebook(data))
    if suffix == ".pdf":
        return _pdf(data, limits, max_chars)
    if suffix == ".docx":
        return Parsed(_docx(data, limits))
    if suffix not in SUFFIXES:
        raise UserError(f"documents of kind {suffix!r} are not read.")
    text, replaced = decode_text(data)
    notes = ["not UTF-8; bytes it could not decode were replaced."] if replaced else []
    if suffix in (".md", ".markdown"):
        return Parsed(_markdown(text), notes)
    if suffix in (".html", ".htm"):
        return Parsed(_html(text), notes)
    return Parsed([Section(text)] if text.strip() else [], notes)


def check_parser(suffix: str) -> None:
    """A ``UserError`` that says what to install when the parser for ``suffix`` is
    missing (without importing it)."""
    module, what, package = _PACKAGES.get(suffix.lower(), (None, "", ""))
    if module is not None and importlib.util.find_spec(module) is None:
        raise _missing(what, package)


def decode_text(data: bytes) -> tuple[str, bool]:
    """``data`` as text: by its byte order mark, else UTF-8; and whether bytes that could not
    be decoded were replaced."""
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            body = data[len(mark) :]
            try:
                return body.decode(encoding), False
            except UnicodeDecodeError:
                return body.decode(encoding, errors="replace"), True
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


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


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of an ATX heading (``## Title ##``), or None. Not a regular
    expression: the one this replaces backtracked cubically on a heading padded with spaces."""
    level = len(line) - len(line.lstrip("#"))
    if not 1 <= level <= 6 or not line[level : level + 1].isspace():
        return None
    title = line[level:].strip()
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1].isspace()):
        title = closed.rstrip()  # a closing run of #, after a space
    return (level, title) if title else None


def _markdown(text: str) -> list[Section]:
    lines: list[tuple[int, str] | str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        found = None if fenced else _heading(line)
        lines.append(found if found else line)
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


def _notebook(data: bytes) -> list[Section]:
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UserError("not a notebook (not UTF-8).") from None
    except (ValueError, RecursionError):
        raise UserError("not a notebook (invalid JSON).") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise UserError("not a notebook (no list of cells).")
    sections = []
    for number, cell in enumerate(cells, start=1):
        text = _cell_text(cell, number)
        if text.strip() and cell.get("cell_type") in ("markdown", "code"):
            sections.append(Section(text.strip(), heading=f"cell {number}"))
    return sections


def _cell_text(cell: Any, number: int) -> str:
    source = cell.get("source", "") if isinstance(cell, dict) else None
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise UserError(f"not a notebook (cell {number} has no text source).")


def _missing(what: str, package: str) -> UserError:
    return UserError(f"Reading {what} needs {package}: pip install 'jupyter-agents[docs-parsers]'.")


def _pdf(data: bytes, limits: DocumentLimits, max_chars: int | None) -> Parsed:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise _missing("PDF files", "pypdf") from None
    sections: list[Section] = []
    notes: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data))
        count = len(reader.pages)
        if count > limits.max_pdf_pages:
            raise UserError(
                f"more than {limits.max_pdf_pages:,} pages ({count:,}): not read (max_pdf_pages)."
            )
        total = 0
        for number, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").strip()
            if text:
                sections.append(Section(text, page=number))
            total += len(text)
            if max_chars is not None and total > max_chars and number < count:
                notes.append(f"text cut short after page {number} of {count}.")
                break
    except UserError:
        raise
    except Exception as e:  # a damaged or encrypted file
        raise UserError(f"cannot read this PDF ({e}).") from None
    return Parsed(sections, notes)


def _check_zip(data: bytes, limit: int) -> None:
    """Refuse a zip that inflates to more than ``limit`` bytes: by the sizes it declares, then
    by inflating each part's compressed bytes and counting. ``zipfile`` trusts a declared size
    only to cut its output short, after inflating everything it was given: a part that lies
    about its size would still inflate whole in the Word reader."""
    too_big = f"inflates to more than {format_size(limit)}: not read (max_inflated_bytes)."
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
    if len(members) > _MAX_ZIP_MEMBERS:
        raise UserError(f"more than {_MAX_ZIP_MEMBERS:,} parts in its zip: not read.")
    if sum(member.file_size for member in members) > limit:
        raise UserError(too_big)
    for member in members:
        if _inflated_size(data, member) > member.file_size:
            raise UserError("its zip holds more than it declares: not read.")


def _inflated_size(data: bytes, member: zipfile.ZipInfo) -> int:
    """How many bytes ``member``'s compressed data inflates to, counted up to one more than
    it declares (then it is lying, and the rest is not inflated)."""
    if member.compress_type == zipfile.ZIP_STORED:
        return member.compress_size
    if member.compress_type != zipfile.ZIP_DEFLATED:
        raise UserError("its zip uses a compression Word documents do not: not read.")
    header = data[member.header_offset : member.header_offset + 30]
    if len(header) < 30 or not header.startswith(b"PK\x03\x04"):
        raise zipfile.BadZipFile(f"no local header for {member.filename!r}")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    start = member.header_offset + 30 + name_length + extra_length
    compressed = memoryview(data)[start : start + member.compress_size]
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    size = 0
    for offset in range(0, len(compressed), 1 << 16):
        pending: bytes | memoryview = compressed[offset : offset + (1 << 16)]
        while pending and not inflater.eof:
            size += len(inflater.decompress(pending, 1 << 20))
            if size > member.file_size:
                return size
            pending = inflater.unconsumed_tail
        if inflater.eof:
            break
    return size


def _docx(data: bytes, limits: DocumentLimits) -> list[Section]:
    try:
        import docx
    except ImportError:
        raise _missing("Word documents", "python-docx") from None
    try:
        _check_zip(data, limits.max_inflated_bytes)
        document = docx.Document(io.BytesIO(data))
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"cannot read this Word document ({e}).") from None
    lines: list[tuple[int, str] | str] = []
    for paragraph in document.paragraphs:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = re.fullmatch(r"Heading ([1-9])", style)
        if level and paragraph.text.strip():
            lines.append((int(level.group(1)), " ".join(paragraph.text.split())))
        elif paragraph.text.strip():
            lines.append(paragraph.text)
    return _with_headings(lines)
