"""``DocumentLimits``: what one document, or one indexing pass, may cost."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import UserError

__all__ = ["DocumentLimits", "format_size"]

MB = 1 << 20


@dataclass(frozen=True)
class DocumentLimits:
    """Caps on what the indexer reads. A file over a cap is skipped, or cut short where a
    beginning is still useful (passages); either way the ``IndexReport`` says so."""

    max_files: int = 10_000
    """Documents read in one pass; the rest of the folder is left out (with a warning)."""
    max_depth: int = 32
    """Folders deep; deeper folders are not read."""
    max_file_bytes: int = 50 * MB
    """Size of one file on disk; a larger file is not opened for reading."""
    max_inflated_bytes: int = 100 * MB
    """What a Word document (a zip) may inflate to, by its declared sizes and by the bytes
    actually inflated."""
    max_pdf_pages: int = 2_000
    """Pages of one PDF; a PDF with more is not read."""
    max_chunks_per_file: int = 10_000
    """Passages of one file; only the first ones are indexed."""
    max_parse_seconds: int = 120
    """Time to parse one HTML, PDF or Word document (in a child process, stopped then)."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise UserError(f"DocumentLimits: {field.name} must be a positive integer.")


def format_size(size: int) -> str:
    """``50 MB``, ``64 KB`` or ``1,234 bytes``."""
    if size >= MB and size % MB == 0:
        return f"{size // MB:,} MB"
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024:,} KB"
    return f"{size:,} bytes"
