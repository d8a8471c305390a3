"""The tables of ``AdvancedSQLiteSession`` and the work done on them on
worker threads (the session's coroutines hand it there)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..errors import UserError
from ..items import TResponseInputItem
from ._common import decode_item, logger
from .sqlite import SQLiteSession

__all__ = ["MAIN", "BranchStore", "text_of"]

MAIN = "main"


class BranchStore(SQLiteSession):
    """A SQLite session whose items carry a branch, a position and a turn."""

    current_branch_id: str
    _structure: str
    _usage: str
    _branches: str

    # -- tables -----------------------------------------------------------------------------

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        super()._create_schema(conn)
        m, st, us = self.messages_table, self._structure, self._usage
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {st} ("
                "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
                f"message_id INTEGER NOT NULL REFERENCES {m} (id) ON DELETE CASCADE, "
                "branch_id TEXT NOT NULL, position INTEGER NOT NULL, turn INTEGER NOT NULL, "
                "kind TEXT NOT NULL, tool_name TEXT, "
                "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
            )
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS idx_{st}_branch ON {st} (session_id, branch_id, "
                "position)"
            )
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {us} ("
                "session_id TEXT NOT NULL, branch_id TEXT NOT NULL, turn INTEGER NOT NULL, "
                "requests INTEGER NOT NULL, input_tokens INTEGER NOT NULL, "
                "output_tokens INTEGER NOT NULL, total_tokens INTEGER NOT NULL, "
                "details TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
                "PRIMARY KEY (session_id, branch_id, turn))"
            )
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self._branches} ("
                "session_id TEXT NOT NULL, branch_id TEXT NOT NULL, "
                "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
                "PRIMARY KEY (session_id, branch_id))"
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.rollback()
            raise

    # -- the Session protocol, on the current branch -------------------------------------------

    def _get_items(self, limit: int | None) -> list[TResponseInputItem]:
        rows = self._branch_rows(self.current_branch_id, limit)
        return [item for (data,) in rows if (item := decode_item(data)) is not None]

    def _add_items(self, encoded: list[str]) -> None:
        s, m, st = self.sessions_table, self.messages_table, self._structure
        branch = self.current_branch_id
        with self._transaction() as conn:
            conn.execute(f"INSERT OR IGNORE INTO {s} (session_id) VALUES (?)", (self.session_id,))
            conn.execute(
                f"INSERT OR IGNORE INTO {self._branches} (session_id, branch_id) VALUES (?, ?)",
                (self.session_id, branch),
            )
            position, turn = conn.execute(
                f"SELECT COALESCE(MAX(position), 0), COALESCE(MAX(turn), 0) FROM {st} "
                "WHERE session_id = ? AND branch_id = ?",
                (self.session_id, branch),
            ).fetchone()
            for data in encoded:
                item = json.loads(data)
                kind, tool = _kind(item), _tool_name(item)
                turn += kind == "user"
                position += 1
                cursor = conn.execute(
                    f"INSERT INTO {m} (session_id, message_data) VALUES (?, ?)",
                    (self.session_id, data),
                )
                conn.execute(
                    f"INSERT INTO {st} (session_id, message_id, branch_id, position, turn, kind, "
                    "tool_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (self.session_id, cursor.lastrowid, branch, position, turn, kind, tool),
                )
            conn.execute(
                f"UPDATE {s} SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?",
                (self.session_id,),
            )

    def _pop_item(self) -> TResponseInputItem | None:
        m, st = self.messages_table, self._structure
        with self._transaction() as conn:
            while True:
                row = conn.execute(
                    f"SELECT s.message_id, m.message_data FROM {st} s JOIN {m} m "
                    "ON m.id = s.message_id WHERE s.session_id = ? AND s.branch_id = ? "
                    "ORDER BY s.position DESC LIMIT 1",
                    (self.session_id, self.current_branch_id),
                ).fetchone()
                if row is None:
                    return None
                conn.execute(f"DELETE FROM {m} WHERE id = ?", (row[0],))  # cascades
                item = decode_item(row[1])
                if item is not None:
                    return item

    def _clear_session(self) -> None:
        with self._transaction() as conn:
            tables = (self._usage, self._structure, self._branches, self.messages_table)
            for table in (*tables, self.sessions_table):
                conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (self.session_id,))
        self.current_branch_id = MAIN

    def _branch_rows(self, branch: str, limit: int | None) -> list[Any]:
        joined = (
            f"{self._structure} s JOIN {self.messages_table} m ON m.id = s.message_id "
            "WHERE s.session_id = ? AND s.branch_id = ?"
        )
        params: tuple[Any, ...] = (self.session_id, branch)
        if limit is None:
            sql = f"SELECT m.message_data FROM {joined} ORDER BY s.position"
        else:
            sql = (
                f"SELECT data FROM (SELECT s.position AS pos, m.message_data AS data FROM "
                f"{joined} ORDER BY s.position DESC LIMIT ?) ORDER BY pos"
            )
            params = (*params, limit)
        with self._connection(write=False) as conn:
            return conn.execute(sql, params).fetchall()

    def _copy_branch(self, turn: int, name: str) -> None:
        m, st, us = self.messages_table, self._structure, self._usage
        source = self.current_branch_id
        with self._transaction() as conn:
            exists = conn.execute(
                f"SELECT 1 FROM {self._branches} WHERE session_id = ? AND branch_id = ?",
                (self.session_id, name),
            ).fetchone()
            if exists or name == MAIN:
                raise UserError(f"A branch named {name!r} exists; choose another branch_name.")
            start = conn.execute(
                f"SELECT position FROM {st} WHERE session_id = ? AND branch_id = ? AND turn = ? "
                "AND kind = 'user'",
                (self.session_id, source, turn),
            ).fetchone()
            if start is None:
                raise UserError(
                    f"Branch {source!r} has no user turn {turn}; see get_conversation_turns()."
                )
            conn.execute(
                f"INSERT INTO {self._branches} (session_id, branch_id) VALUES (?, ?)",
                (self.session_id, name),
            )
            rows = conn.execute(
                f"SELECT m.message_data, s.position, s.turn, s.kind, s.tool_name FROM {st} s "
                f"JOIN {m} m ON m.id = s.message_id WHERE s.session_id = ? AND s.branch_id = ? "
                "AND s.position < ? ORDER BY s.position",
                (self.session_id, source, start[0]),
            ).fetchall()
            for data, position, item_turn, kind, tool in rows:
                cursor = conn.execute(
                    f"INSERT INTO {m} (session_id, message_data) VALUES (?, ?)",
                    (self.session_id, data),
                )
                conn.execute(
                    f"INSERT INTO {st} (session_id, message_id, branch_id, position, turn, kind, "
                    "tool_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (self.session_id, cursor.lastrowid, name, position, item_turn, kind, tool),
                )
            conn.execute(
                f"INSERT INTO {us} (session_id, branch_id, turn, requests, input_tokens, "
                "output_tokens, total_tokens, details) SELECT session_id, ?, turn, requests, "
                f"input_tokens, output_tokens, total_tokens, details FROM {us} WHERE "
                "session_id = ? AND branch_id = ? AND turn < ?",
                (name, self.session_id, source, turn),
            )
        logger.info("session %r: branch %r from turn %d of %r", self.session_id, name, turn, source)

    def _delete_branch(self, branch: str) -> None:
        m, st, us = self.messages_table, self._structure, self._usage
        with self._transaction() as conn:
            conn.execute(
                f"DELETE FROM {m} WHERE id IN (SELECT message_id FROM {st} WHERE session_id = ? "
                "AND branch_id = ?)",
                (self.session_id, branch),
            )
            for table in (us, self._branches):
                conn.execute(
                    f"DELETE FROM {table} WHERE session_id = ? AND branch_id = ?",
                    (self.session_id, branch),
                )

    def _store_usage(self, row: tuple[Any, ...]) -> None:
        st, us = self._structure, self._usage
        branch = self.current_branch_id
        with self._transaction() as conn:
            (turn,) = conn.execute(
                f"SELECT COALESCE(MAX(turn), 0) FROM {st} WHERE session_id = ? AND branch_id = ?",
                (self.session_id, branch),
            ).fetchone()
            conn.execute(
                f"INSERT INTO {us} (session_id, branch_id, turn, requests, input_tokens, "
                "output_tokens, total_tokens, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, branch_id, turn) DO UPDATE SET "
                "requests = requests + excluded.requests, "
                "input_tokens = input_tokens + excluded.input_tokens, "
                "output_tokens = output_tokens + excluded.output_tokens, "
                "total_tokens = total_tokens + excluded.total_tokens, details = excluded.details",
                (self.session_id, branch, turn, *row),
            )


def _kind(item: dict[str, Any]) -> str:
    """``user``, ``assistant``, ``tool_call``, ``tool_output``, ... for one input item."""
    kind = item.get("type")
    if kind in (None, "message"):
        return str(item.get("role") or "message")
    if isinstance(kind, str) and kind.endswith("_call_output"):
        return "tool_output"
    if isinstance(kind, str) and kind.endswith("_call"):
        return "tool_call"
    return str(kind)


def _tool_name(item: dict[str, Any]) -> str | None:
    if _kind(item) != "tool_call":
        return None
    name = item.get("name")
    return name if isinstance(name, str) else str(item.get("type", "")).removesuffix("_call")


def text_of(item: Any) -> str:
    """The text of a user message item."""
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict)
        ).strip()
    return ""
