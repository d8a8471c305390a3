"""``DocumentStore``: a folder of documents, indexed in SQLite beside them, searched by keywords
(FTS5, BM25), by meaning (embeddings) or both (reciprocal rank fusion).

The index lives in ``<folder>/.jupyter_agents/retrieval.sqlite`` (a folder shell commands may
not write to). Indexing reads only regular files inside the folder (see ``files``), within
``DocumentLimits``, and only files whose content changed since the last time (by
SHA-256); it forgets files that are gone. A file it cannot or will not read is skipped and
reported, never the end of the pass. Embeddings come from your ``embed`` function or the OpenAI
embeddings API (``client``, or the default client when an API key is set); without either, or
while they fail, search is by keywords.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._util import STATE_FOLDER, make_state_folder
from ..blocking import run_blocking
from ..errors import UserError
from .chunk import Chunk, iter_chunks
from .embeddings import Embedder, Embeddings, cosine, unpack
from .files import list_documents, read_document
from .index_db import fts_row, open_index
from .limits import DocumentLimits
from .parse import ISOLATED, check_parser, parse_document
from .results import Hit, IndexReport, SearchMode, SearchResult
from .segment import segmentation
from .text import match_expression
from .worker import ParserProcess

__all__ = ["DocumentStore", "Hit", "IndexReport", "SearchMode", "SearchResult"]

logger = logging.getLogger("jupyter_agents")

RRF_K = 60
"""The constant of reciprocal rank fusion: a hit's score is the sum of 1 / (60 + rank)."""
_COMMIT_EVERY = 64
"""Files written per transaction while indexing (a commit per file was most of the time)."""


@dataclass(frozen=True)
class _Read:
    """A changed file, parsed and chunked."""

    digest: str
    chunks: list[Chunk]
    fts: list[str]
    """Each chunk as the full-text table holds it."""
    notes: list[str]


class DocumentStore:
    """Documents under ``path`` and their index (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embed: Embedder | None = None,
        client: Any = None,
        embedding_model: str = "text-embedding-3-small",
        chunk_chars: int = 1200,
        overlap: int = 200,
        limits: DocumentLimits | None = None,
        embedding_timeout: float = 30.0,
        embedding_retry_seconds: float = 60.0,
    ) -> None:
        self.root = Path(path).expanduser().resolve()
        if not self.root.is_dir():
            raise UserError(f"DocumentStore: {str(self.root)!r} is not a folder.")
        if not 0 <= overlap < chunk_chars:
            raise UserError("DocumentStore: overlap must be at least 0 and below chunk_chars.")
        self.chunk_chars, self.overlap = chunk_chars, overlap
        self.limits = limits or DocumentLimits()
        self.embeddings = Embeddings(
            embed, client, embedding_model, embedding_timeout, embedding_retry_seconds
        )
        folder = self.root / STATE_FOLDER
        index = folder / "retrieval.sqlite"
        for path in (folder, index):  # the index is written: never through a planted link
            if path.is_symlink() or (path.exists() and path.is_dir() != (path == folder)):
                what = "a folder" if path == folder else "a file"
                raise UserError(f"DocumentStore: {path} is not {what}, or is a link; remove it.")
            if path == folder:
                make_state_folder(folder)
        self._cut = segmentation()  # how Chinese is cut: jieba's words, or pairs
        self._db = open_index(index, self._cut)
        self._lock = threading.Lock()
        self.last_report: IndexReport | None = None
        """What the last indexing pass did."""

    def __repr__(self) -> str:
        return f"DocumentStore({str(self.root)!r}, {self.count()} chunks)"

    @property
    def embedding_error(self) -> str | None:
        """Why embeddings failed last (search is by keywords meanwhile); None when they work."""
        return self.embeddings.error

    # -- what is indexed --------------------------------------------------------------------

    def count(self) -> int:
        """Chunks in the index."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def sources(self) -> list[str]:
        """Files and folders added with ``add`` (none: the whole folder is indexed)."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT path FROM sources ORDER BY path")]

    # -- indexing ---------------------------------------------------------------------------

    def add(self, *paths: str | os.PathLike[str]) -> IndexReport:
        """Index these files or folders (inside the store's folder) from now on, and now."""
        return run_blocking(self.aadd(*paths))

    async def aadd(self, *paths: str | os.PathLike[str]) -> IndexReport:
        """``add``, awaitable."""
        relative = []
        for path in paths:
            full = (self.root / path).resolve()
            if not full.is_relative_to(self.root):
                raise UserError(f"{os.fspath(path)!r} is outside the store's folder {self.root}.")
            if not full.exists():
                raise UserError(f"{os.fspath(path)!r} does not exist.")
            relative.append(full.relative_to(self.root).as_posix() or ".")
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO sources VALUES (?)", [(r,) for r in relative]
            )
        return await self.aindex()

    def index(self) -> IndexReport:
        """Bring the index up to date with the files."""
        return run_blocking(self.aindex())

    async def aindex(self) -> IndexReport:
        """``index``, awaitable."""
        report = IndexReport()
        listing = await asyncio.to_thread(
            list_documents, self.root, self.sources() or ["."], self.limits
        )
        report.skipped.update(listing.skipped)
        report.warnings += listing.warnings
        with self._lock:
            known = dict(self._db.execute("SELECT path, sha256 FROM files"))
        parsers = ParserProcess(self.limits.max_parse_seconds)
        try:
            for path in sorted(set(known) - set(listing.files)):
                await asyncio.to_thread(self._write, path, None, None)
                report.removed += 1
            for number, path in enumerate(listing.files, start=1):
                await self._index_file(path, known.get(path), parsers, report)
                if number % _COMMIT_EVERY == 0:
                    await asyncio.to_thread(self._commit)
        finally:
            await asyncio.to_thread(parsers.close)
            await asyncio.to_thread(self._commit)
        if self.embeddings.error is not None and report.chunks:
            report.warnings.append(
                f"Embeddings unavailable ({self.embeddings.error}): indexed for keyword search; "
                "passages are embedded on a later search."
            )
        if report.skipped or report.warnings:
            why = [f"{p}: {w}" for p, w in report.skipped.items()] + report.warnings
            logger.warning("documents: %s", "; ".join(why))
        self.last_report = report
        return report

    async def _index_file(
        self, path: str, known: str | None, parsers: ParserProcess, report: IndexReport
    ) -> None:
        """Bring one file's chunks up to date; a file that cannot be read is skipped."""
        try:
            read = await asyncio.to_thread(self._read, path, known, parsers)
        except Exception as e:  # one bad file (or a parser's bug) skips that file only
            report.skipped[path] = (
                str(e) if isinstance(e, UserError) else f"{type(e).__name__}: {e}"
            )
            if known is not None:
                await asyncio.to_thread(self._write, path, None, None)
            return
        if read is None:
            report.unchanged += 1
            return
        report.warnings += [f"{path}: {note}" for note in read.notes]
        embeddings = None
        if read.chunks and self.embeddings.embedder() is not None:
            embeddings = await self.embeddings.attempt([c.text for c in read.chunks])
        try:
            await asyncio.to_thread(self._write, path, read, embeddings)
        except (sqlite3.Error, UnicodeError) as e:
            report.skipped[path] = f"cannot be stored in the index ({e})"
            return
        report.chunks += len(read.chunks)
        if known is not None:
            report.updated += 1
        else:
            report.added += 1

    def _read(self, path: str, known: str | None, parsers: ParserProcess) -> _Read | None:
        """The file's chunks, or None when its content is what the index has."""
        data = read_document(self.root, path, self.limits.max_file_bytes)
        digest = hashlib.sha256(data).hexdigest()
        if digest == known:
            return None
        limit = self.limits.max_chunks_per_file
        suffix, max_chars = os.path.splitext(path)[1].lower(), limit * self.chunk_chars
        if suffix in ISOLATED:  # parsers that are not ours: in a child, with a time limit
            check_parser(suffix)
            parsed = parsers.parse(suffix, data, self.limits, max_chars)
        else:
            parsed = parse_document(suffix, data, self.limits, max_chars)
        chunks = iter_chunks(parsed.sections, self.chunk_chars, self.overlap)
        kept = list(itertools.islice(chunks, limit + 1))
        if len(kept) > limit:
            del kept[limit:]
            parsed.notes.append(
                f"only its first {limit:,} passages are indexed (max_chunks_per_file)."
            )
        fts = [fts_row(c.heading, c.text, self._cut) for c in kept]
        return _Read(digest, kept, fts, parsed.notes)

    def _write(self, path: str, read: _Read | None, embeddings: list[bytes] | None) -> None:
        """Replace one file's chunks (remove them, without ``read``) in the pass's transaction;
        a failure undoes this file's change only."""
        with self._lock:
            if not self._db.in_transaction:
                self._db.execute("BEGIN")
            self._db.execute("SAVEPOINT one_file")
            try:
                self._replace(path, read, embeddings)
            except BaseException:
                self._db.execute("ROLLBACK TO one_file")
                raise
            finally:
                self._db.execute("RELEASE one_file")

    def _replace(self, path: str, read: _Read | None, embeddings: list[bytes] | None) -> None:
        ids = [(r[0],) for r in self._db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
        self._db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", ids)
        self._db.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self._db.execute("DELETE FROM files WHERE path = ?", (path,))
        if read is None:
            return
        vectors: list[bytes | None] = [*embeddings] if embeddings else [None] * len(read.chunks)
        for chunk, fts, vector in zip(read.chunks, read.fts, vectors, strict=True):
            cursor = self._db.execute(
                "INSERT INTO chunks (path, text, page, heading, embedding) VALUES (?,?,?,?,?)",
                (path, chunk.text, chunk.page, chunk.heading, vector),
            )
            self._db.execute(
                "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", (cursor.lastrowid, fts)
            )
        self._db.execute("INSERT INTO files VALUES (?, ?)", (path, read.digest))

    def _commit(self) -> None:
        with self._lock:
            self._db.commit()

    async def _ensure_embeddings(self) -> None:
        """Embed chunks indexed before there was an embedder (or while it failed), a batch at a
        time, so that what is done stays done if it fails part way."""
        with self._lock:
            missing = self._db.execute(
                "SELECT id, text FROM chunks WHERE embedding IS NULL"
            ).fetchall()
        for start in range(0, len(missing), 256):
            part = missing[start : start + 256]
            vectors = await self.embeddings.vectors([text for _, text in part])
            with self._lock, self._db:
                self._db.executemany(
                    "UPDATE chunks SET embedding = ? WHERE id = ?",
                    [(v, i) for (i, _), v in zip(part, vectors, strict=True)],
                )

    # -- search -----------------------------------------------------------------------------

    def search(self, query: str, k: int = 5, mode: SearchMode = "hybrid") -> list[Hit]:
        """The ``k`` best chunks for ``query``."""
        return run_blocking(self.asearch(query, k, mode))

    async def asearch(self, query: str, k: int = 5, mode: SearchMode = "hybrid") -> list[Hit]:
        """``search``, awaitable. ``hybrid`` without an embedder searches by keywords, and
        so do ``hybrid`` and ``vector`` while embeddings fail (with a logged warning)."""
        return (await self.asearch_result(query, k, mode)).hits

    async def asearch_result(
        self, query: str, k: int = 5, mode: SearchMode = "hybrid"
    ) -> SearchResult:
        """``asearch``, with the search that ran and its warnings."""
        if mode not in ("hybrid", "keyword", "vector"):
            raise UserError(f"mode must be 'hybrid', 'keyword' or 'vector', got {mode!r}.")
        has_embedder = self.embeddings.embedder() is not None
        if mode == "keyword" or (mode == "hybrid" and not has_embedder):
            return SearchResult(await self._akeyword(query, k), "keyword")
        if not has_embedder:
            raise UserError(
                "Vector search needs embeddings: give DocumentStore(embed=...) or client=, "
                "or set OPENAI_API_KEY."
            )
        vector = None
        if not self.embeddings.resting:
            try:
                await self._ensure_embeddings()
                vector = await self._vector(query, k if mode == "vector" else 4 * k)
            except Exception as e:  # the service or the user's embed function failed
                self.embeddings.failed(e)
        if vector is None:
            why = f"searched by keywords only: embeddings unavailable ({self.embeddings.error})."
            return SearchResult(await self._akeyword(query, k), "keyword", [why])
        if mode == "vector":
            return SearchResult(vector, "vector")
        return SearchResult(_fuse(await self._akeyword(query, 4 * k), vector, k), "hybrid")

    async def _akeyword(self, query: str, k: int) -> list[Hit]:
        """``_keyword``, off the event loop when jieba cuts the query: the first one with
        Chinese in it loads jieba's dictionary, which takes seconds."""
        if self._cut.words is None:
            return self._keyword(query, k)
        return await asyncio.to_thread(self._keyword, query, k)

    def _keyword(self, query: str, k: int) -> list[Hit]:
        match = match_expression(query, self._cut.words)  # the query's words, never FTS syntax
        if match is None:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT c.id, c.path, c.text, c.page, c.heading, bm25(chunks_fts) AS rank "
                "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
                (match, k),
            ).fetchall()
        return [
            Hit(text, path, page, heading, -rank, id_)
            for id_, path, text, page, heading, rank in rows
        ]

    async def _vector(self, query: str, k: int) -> list[Hit]:
        (packed,) = await self.embeddings.vectors([query])
        self.embeddings.error = None
        target = unpack(packed)
        with self._lock:
            rows = self._db.execute(
                "SELECT id, path, text, page, heading, embedding FROM chunks "
                "WHERE embedding IS NOT NULL"
            ).fetchall()
        scored = [
            (cosine(target, unpack(blob)), id_, path, text, page, heading)
            for id_, path, text, page, heading, blob in rows
        ]
        scored.sort(key=lambda row: -row[0])
        return [Hit(t, p, pg, h, s, i) for s, i, p, t, pg, h in scored[:k]]

    def close(self) -> None:
        """Close the index."""
        with self._lock:
            self._db.close()


def _fuse(keyword: list[Hit], vector: list[Hit], k: int) -> list[Hit]:
    """Reciprocal rank fusion of two rankings."""
    scores: dict[int, float] = {}
    hits: dict[int, Hit] = {}
    for ranking in (keyword, vector):
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (RRF_K + rank)
            hits.setdefault(hit.chunk_id, hit)
    best = sorted(scores, key=lambda i: -scores[i])[:k]
    return [
        Hit(hits[i].text, hits[i].source, hits[i].page, hits[i].section, scores[i], i) for i in best
    ]
