"""The SQLite file behind a document store: its schema, its version, and what happens to an
index written by another version (migrated, or rebuilt) or damaged (set aside, rebuilt).

Version 1 (no ``user_version``) put raw text in the full-text table; version 2 put
``index_text`` (CJK text as pairs of characters); version 3 also names, in ``settings``,
the ``Segmentation`` that cut it (Chinese in words when jieba is installed). An index cut
another way than the store's (an older version, or jieba installed or removed since) has only
its full-text table rewritten from the stored chunks, so embeddings are kept and no file is
read again.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from .segment import PAIRS, Segmentation
from .text import index_text

__all__ = ["SCHEMA_VERSION", "fts_row", "open_index"]

logger = logging.getLogger("jupyter_agents")

SCHEMA_VERSION = 3

_TABLES = """
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL, page INTEGER,
    heading TEXT, embedding BLOB
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE TABLE IF NOT EXISTS sources (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_FTS = "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')"


def fts_row(heading: str | None, text: str, cut: Segmentation) -> str:
    """What the full-text table holds for a chunk."""
    return index_text(f"{heading or ''}\n{text}", cut.words)


def open_index(path: Path, cut: Segmentation) -> sqlite3.Connection:
    """The index at ``path``, created, migrated or rebuilt so that it is at
    ``SCHEMA_VERSION`` and its full text is cut by ``cut``. A file that is not a
    database is renamed ``*.damaged``."""
    try:
        return _upgraded(path, cut)
    except sqlite3.DatabaseError as e:
        damaged = path.with_name(path.name + ".damaged")
        logger.warning("document index %s is damaged (%s): set aside as %s", path, e, damaged)
        path.replace(damaged)
        return _upgraded(path, cut)


def _upgraded(path: Path, cut: Segmentation) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False)
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        with db:
            if version > SCHEMA_VERSION or (version == 0 and tables and "chunks" not in tables):
                logger.warning("document index %s is of version %d: rebuilt", path, version)
                _drop_all(db, tables)
                tables = set()
            db.executescript(_TABLES)
            if "chunks_fts" not in tables or _cut_by(db, version) != cut.name:
                _refill_fts(db, "chunks_fts" in tables, cut)
            db.execute("INSERT OR REPLACE INTO settings VALUES ('cut', ?)", (cut.name,))
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def _cut_by(db: sqlite3.Connection, version: int) -> str | None:
    """The name of the segmentation that cut the full-text table (None: raw text)."""
    if version < 2:
        return None
    row = db.execute("SELECT value FROM settings WHERE key = 'cut'").fetchone()
    return str(row[0]) if row else PAIRS.name  # version 2 had no settings


def _drop_all(db: sqlite3.Connection, tables: set[str]) -> None:
    for name in sorted(tables):
        if not name.startswith(("sqlite_", "chunks_fts_")):  # FTS5's shadow tables go with it
            db.execute(f'DROP TABLE IF EXISTS "{name}"')


def _refill_fts(db: sqlite3.Connection, exists: bool, cut: Segmentation) -> None:
    """(Re)create the full-text table from the chunks (none in a new index)."""
    if exists:
        db.execute("DROP TABLE chunks_fts")
    db.execute(_FTS)
    rows = db.execute("SELECT id, heading, text FROM chunks").fetchall()
    if rows:
        logger.info("document index: %d passages cut again (%s)", len(rows), cut.name)
    db.executemany(
        "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
        [(id_, fts_row(heading, text, cut)) for id_, heading, text in rows],
    )
