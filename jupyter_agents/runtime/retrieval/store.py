"""``DocumentStore``: a folder of documents, indexed in SQLite beside them, searched by keywords
(FTS5, BM25), by meaning (embeddings) or both (reciprocal rank fusion).

The index lives in ``<folder>/.jupyter_agents/retrieval.sqlite`` (a folder shell commands may
not write to). Indexing reads only files whose content changed since the last time (by
SHA-256) and forgets files that are gone. Embeddings come from your ``embed`` function or the
OpenAI embeddings API (``client``, or the default client when an API key is set); without
either, search is by keywords.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import math
import os
import re
import sqlite3
import struct
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias, Union

from ..blocking import run_blocking
from ..errors import UserError
from .chunk import Chunk, chunk_sections
from .parse import SUFFIXES, parse_file

__all__ = ["DocumentStore", "Hit", "IndexReport", "SearchMode"]

logger = logging.getLogger("jupyter_agents")

Embedder: TypeAlias = Callable[
    [list[str]], Union[Sequence[Sequence[float]], Awaitable[Sequence[Sequence[float]]]]
]
SearchMode: TypeAlias = Literal["hybrid", "keyword", "vector"]
RRF_K = 60
"""The constant of reciprocal rank fusion: a hit's score is the sum of 1 / (60 + rank)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL, page INTEGER,
    heading TEXT, embedding BLOB
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS sources (path TEXT PRIMARY KEY);
"""


@dataclass(frozen=True)
class Hit:
    """A chunk found by a search."""

    text: str
    source: str
    """The file, relative to the store's folder."""
    page: int | None
    section: str | None
    score: float
    chunk_id: int

    @property
    def citation(self) -> str:
        """Where it comes from: ``guide.pdf, page 3`` or ``install.md § Install > Linux``."""
        if self.page is not None:
            return f"{self.source}, page {self.page}"
        return f"{self.source} § {self.section}" if self.section else self.source


@dataclass
class IndexReport:
    """What an indexing pass did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    """Chunks written."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Files that could not be read, with why."""


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
    ) -> None:
        self.root = Path(path).expanduser().resolve()
        if not self.root.is_dir():
            raise UserError(f"DocumentStore: {str(self.root)!r} is not a folder.")
        if not 0 <= overlap < chunk_chars:
            raise UserError("DocumentStore: overlap must be at least 0 and below chunk_chars.")
        self.embed, self.client, self.embedding_model = embed, client, embedding_model
        self.chunk_chars, self.overlap = chunk_chars, overlap
        folder = self.root / ".jupyter_agents"
        folder.mkdir(exist_ok=True)
        self._db = sqlite3.connect(folder / "retrieval.sqlite", check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()
        self._pool: Any = None
        self.embedding_requests = 0
        """Calls made to the embedder (each embeds a batch)."""

    def __repr__(self) -> str:
        return f"DocumentStore({str(self.root)!r}, {self.count()} chunks)"

    # -- what is indexed --------------------------------------------------------------------

    def count(self) -> int:
        """Chunks in the index."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def sources(self) -> list[str]:
        """Files and folders added with :meth:`add` (none: the whole folder is indexed)."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT path FROM sources ORDER BY path")]

    def _files(self) -> dict[str, Path]:
        starts = [self.root / s for s in self.sources()] or [self.root]
        found: dict[str, Path] = {}
        for start in starts:
            paths: Iterable[Path] = [start] if start.is_file() else start.rglob("*")
            for file in paths:
                relative = file.relative_to(self.root)
                if any(part.startswith(".") for part in relative.parts):
                    continue  # hidden folders: .git, .jupyter_agents, ...
                if file.is_file() and file.suffix.lower() in SUFFIXES:
                    found[relative.as_posix()] = file
        return found

    # -- indexing ---------------------------------------------------------------------------

    def add(self, *paths: str | os.PathLike[str]) -> IndexReport:
        """Index these files or folders (inside the store's folder) from now on, and now."""
        return run_blocking(self.aadd(*paths))

    async def aadd(self, *paths: str | os.PathLike[str]) -> IndexReport:
        """:meth:`add`, awaitable."""
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
        """:meth:`index`, awaitable."""
        report = IndexReport()
        files = await asyncio.to_thread(self._files)
        with self._lock:
            known = dict(self._db.execute("SELECT path, sha256 FROM files"))
        for path in sorted(set(known) - set(files)):
            self._forget(path)
            report.removed += 1
        for path, file in sorted(files.items()):
            digest = await asyncio.to_thread(_sha256, file)
            if known.get(path) == digest:
                report.unchanged += 1
                continue
            try:
                chunks = await asyncio.to_thread(self._chunks, file)
            except UserError as e:
                report.skipped[path] = str(e)
                continue
            embeddings = await self._embed([c.text for c in chunks]) if chunks else []
            self._store(path, digest, chunks, embeddings)
            report.chunks += len(chunks)
            if path in known:
                report.updated += 1
            else:
                report.added += 1
        if report.skipped:
            logger.warning("documents not indexed: %s", "; ".join(report.skipped.values()))
        return report

    def _chunks(self, file: Path) -> list[Chunk]:
        return chunk_sections(parse_file(file), self.chunk_chars, self.overlap)

    def _forget(self, path: str) -> None:
        with self._lock, self._db:
            ids = [r[0] for r in self._db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
            self._db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(i,) for i in ids])
            self._db.execute("DELETE FROM chunks WHERE path = ?", (path,))
            self._db.execute("DELETE FROM files WHERE path = ?", (path,))

    def _store(
        self, path: str, digest: str, chunks: list[Chunk], embeddings: list[bytes | None]
    ) -> None:
        self._forget(path)
        with self._lock, self._db:
            for chunk, vector in zip(chunks, embeddings or [None] * len(chunks), strict=True):
                cursor = self._db.execute(
                    "INSERT INTO chunks (path, text, page, heading, embedding) VALUES (?,?,?,?,?)",
                    (path, chunk.text, chunk.page, chunk.heading, vector),
                )
                self._db.execute(
                    "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
                    (cursor.lastrowid, f"{chunk.heading or ''}\n{chunk.text}"),
                )
            self._db.execute("INSERT OR REPLACE INTO files VALUES (?, ?)", (path, digest))

    # -- embeddings -------------------------------------------------------------------------

    def _embedder(self) -> Embedder | None:
        if self.embed is not None:
            return self.embed
        from ..models.provider import ClientPool, shared_client_pool

        if self.client is not None:
            if self._pool is None:  # one client per event loop, like the models' clients
                self._pool = ClientPool(self.client)
            pool = self._pool
        elif os.environ.get("OPENAI_API_KEY"):
            pool = shared_client_pool()
        else:
            return None

        async def by_api(texts: list[str]) -> list[list[float]]:
            client = pool.get()
            answer = await client.embeddings.create(model=self.embedding_model, input=texts)
            return [list(item.embedding) for item in sorted(answer.data, key=lambda d: d.index)]

        return by_api

    async def _embed(self, texts: list[str], batch: int = 64) -> list[bytes | None]:
        embedder = self._embedder()
        if embedder is None:
            return [None] * len(texts)
        vectors: list[bytes | None] = []
        for start in range(0, len(texts), batch):
            part = texts[start : start + batch]
            result = embedder(part)
            if inspect.isawaitable(result):
                result = await result
            self.embedding_requests += 1
            if len(result) != len(part):
                raise UserError(f"The embedder gave {len(result)} vectors for {len(part)} texts.")
            vectors += [_pack(v) for v in result]
        return vectors

    async def _ensure_embeddings(self) -> None:
        """Embed chunks indexed before there was an embedder."""
        with self._lock:
            missing = self._db.execute(
                "SELECT id, text FROM chunks WHERE embedding IS NULL"
            ).fetchall()
        if not missing:
            return
        vectors = await self._embed([text for _, text in missing])
        with self._lock, self._db:
            self._db.executemany(
                "UPDATE chunks SET embedding = ? WHERE id = ?",
                [(v, i) for (i, _), v in zip(missing, vectors, strict=True)],
            )

    # -- search -----------------------------------------------------------------------------

    def search(self, query: str, k: int = 5, mode: SearchMode = "hybrid") -> list[Hit]:
        """The ``k`` best chunks for ``query``."""
        return run_blocking(self.asearch(query, k, mode))

    async def asearch(self, query: str, k: int = 5, mode: SearchMode = "hybrid") -> list[Hit]:
        """:meth:`search`, awaitable. ``hybrid`` without an embedder searches by keywords."""
        if mode not in ("hybrid", "keyword", "vector"):
            raise UserError(f"mode must be 'hybrid', 'keyword' or 'vector', got {mode!r}.")
        if mode == "keyword" or (mode == "hybrid" and self._embedder() is None):
            return self._keyword(query, k)
        if self._embedder() is None:
            raise UserError(
                "Vector search needs embeddings: give DocumentStore(embed=...) or client=, "
                "or set OPENAI_API_KEY."
            )
        await self._ensure_embeddings()
        vector = await self._vector(query, k if mode == "vector" else 4 * k)
        if mode == "vector":
            return vector
        return _fuse(self._keyword(query, 4 * k), vector, k)

    def _keyword(self, query: str, k: int) -> list[Hit]:
        words = re.findall(r"\w+", query)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)  # never FTS syntax
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
        (packed,) = await self._embed([query])
        assert packed is not None
        target = _unpack(packed)
        with self._lock:
            rows = self._db.execute(
                "SELECT id, path, text, page, heading, embedding FROM chunks "
                "WHERE embedding IS NOT NULL"
            ).fetchall()
        scored = [
            (_cosine(target, _unpack(blob)), id_, path, text, page, heading)
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


def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with file.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _pack(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def _unpack(blob: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def _cosine(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
