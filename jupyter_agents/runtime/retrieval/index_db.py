"""The SQLite file behind a document store: its schema, its version, and what happens to an
index written by another version (migrated, or rebuilt) or damaged (set aside, rebuilt).

Version 1 (no ``user_version``) put raw text in the full-text table; version 2 puts
:func:`index_text` (CJK text as pairs of characters). Moving from 1 to 2 rewrites only the
full-text table from the stored chunks, so embeddings are kept and no file is read again.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from .text import index_text

__all__ = ["SCHEMA_VERSION", "open_index"]

logger = logging.getLogger("jupyter_agents")

SCHEMA_VERSION = 2

_TABLES = """
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL, page INTEGER,
    heading TEXT, embedding BLOB
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE TABLE IF NOT EXISTS sources (path TEXT PRIMARY KEY);
"""
_FTS = "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')"


def fts_row(heading: str | None, text: str) -> str:
    """What the full-text table holds for a chunk."""
    return index_text(f"{heading or ''}\n{text}")


def open_index(path: Path) -> sqlite3.Connection:
    """The index at ``path``, created, migrated or rebuilt so that it is at
    :data:`SCHEMA_VERSION`. A file that is not a database is renamed ``*.damaged``."""
    try:
        return _upgraded(path)
    except sqlite3.DatabaseError as e:
        damaged = path.with_name(path.name + ".damaged")
        logger.warning("document index %s is damaged (%s): set aside as %s", path, e, damaged)
        path.replace(damaged)
        return _upgraded(path)


def _upgraded(path: Path) -> sqlite3.Connection:
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
            if "chunks_fts" not in tables or version < SCHEMA_VERSION:
                _refill_fts(db, "chunks_fts" in tables)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def _drop_all(db: sqlite3.Connection, tables: set[str]) -> None:
    for name in sorted(tables):
        if not name.startswith(("sqlite_", "chunks_fts_")):  # FTS5's shadow tables go with it
            db.execute(f'DROP TABLE IF EXISTS "{name}"')


def _refill_fts(db: sqlite3.Connection, exists: bool) -> None:
    """(Re)create the full-text table from the chunks (none in a new index)."""
    if exists:
        db.execute("DROP TABLE chunks_fts")
    db.execute(_FTS)
    rows = db.execute("SELECT id, heading, text FROM chunks").fetchall()
    db.executemany(
        "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
        [(id_, fts_row(heading, text)) for id_, heading, text in rows],
    )
