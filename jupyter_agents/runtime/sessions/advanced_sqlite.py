"""``AdvancedSQLiteSession``: a SQLite session with conversation branches and per-turn usage.

A *turn* starts at each user message. Every stored item belongs to a branch (``"main"`` at
first) and to the turn it came in; ``AdvancedSQLiteSession.create_branch_from_turn`` starts
a new branch holding everything before a chosen user message, so the conversation can go on
differently from there, and the other branches stay as they were.

Three tables sit beside ``SQLiteSession``'s own (same file, any number of sessions):
``{messages_table}_branches`` (the branches, empty ones included), ``{messages_table}_structure``
(branch, position, turn, kind and tool name of each item) and ``{messages_table}_turn_usage``
(tokens per turn, added by ``store_run_usage``).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from ..errors import UserError
from ._branch_store import MAIN, BranchStore, text_of
from ._common import decode_item, run_write

__all__ = ["AdvancedSQLiteSession"]

_PREVIEW = 100


class AdvancedSQLiteSession(BranchStore):
    """A ``SQLiteSession`` with branches and usage per turn (the SDK's
    ``agents.extensions.memory.AdvancedSQLiteSession``)::

        session = AdvancedSQLiteSession("chat-1", "chats.db")
        result = await Runner.run(agent, "Plan a trip to Rome", session=session)
        await session.store_run_usage(result)
        branch = await session.create_branch_from_turn(1)  # before the first question
        await Runner.run(agent, "Plan a trip to Oslo", session=session)  # on the new branch

    Reads and writes use the current branch (``current_branch_id``), which lives in this
    object: another object on the same database starts on ``"main"``.
    """

    def __init__(
        self,
        session_id: str,
        db_path: str | os.PathLike[str] = ":memory:",
        create_tables: bool = True,
        logger: Any = None,
        **kwargs: Any,
    ) -> None:
        """Open the database; ``kwargs`` go to ``SQLiteSession`` (table names,
        ``busy_timeout``). The tables are always created when missing (``create_tables`` and
        ``logger`` are accepted for the SDK's signature)."""
        self._structure = f"{kwargs.get('messages_table', 'agent_messages')}_structure"
        self._usage = f"{kwargs.get('messages_table', 'agent_messages')}_turn_usage"
        self._branches = f"{kwargs.get('messages_table', 'agent_messages')}_branches"
        self.current_branch_id = MAIN
        """The branch reads and writes use."""
        super().__init__(session_id, db_path, **kwargs)

    def __repr__(self) -> str:
        return f"AdvancedSQLiteSession({self.session_id!r}, db_path={self.db_path!r})"

    # -- branches ------------------------------------------------------------------------------

    async def create_branch_from_turn(
        self, turn_number: int, branch_name: str | None = None
    ) -> str:
        """Start a branch holding the current branch's items before user turn ``turn_number``,
        and switch to it; returns its id (``branch_name``, or a generated one).

        Raises:
            UserError: No such user turn, or a branch of that name exists.
        """
        self._check_open()
        if isinstance(turn_number, bool) or not isinstance(turn_number, int) or turn_number < 1:
            raise UserError(f"turn_number must be an int >= 1, got {turn_number!r}.")
        name = branch_name or f"branch_from_turn_{turn_number}_{int(time.time())}"
        if not isinstance(name, str) or not name.strip():
            raise UserError(f"branch_name must be a non-empty string, got {branch_name!r}.")
        await run_write(lambda: self._copy_branch(turn_number, name))
        self.current_branch_id = name
        return name

    async def create_branch_from_content(
        self, search_term: str, branch_name: str | None = None
    ) -> str:
        """``create_branch_from_turn`` at the first user turn containing ``search_term``.

        Raises:
            UserError: No user turn of the current branch contains it.
        """
        found = await self.find_turns_by_content(search_term)
        if not found:
            raise UserError(
                f"No user turn of branch {self.current_branch_id!r} contains {search_term!r}; "
                "see get_conversation_turns() for the turns there are."
            )
        return await self.create_branch_from_turn(found[0]["turn"], branch_name)

    async def switch_to_branch(self, branch_id: str) -> None:
        """Make ``branch_id`` the current branch.

        Raises:
            UserError: There is no such branch.
        """
        self._check_open()
        if branch_id != MAIN and branch_id not in await self._branch_ids():
            known = ", ".join(sorted({MAIN, *await self._branch_ids()}))
            raise UserError(f"No branch {branch_id!r} in this session; branches: {known}.")
        self.current_branch_id = branch_id

    async def delete_branch(self, branch_id: str, force: bool = False) -> None:
        """Delete a branch, its items and its usage; ``force`` allows the current branch (the
        session then switches to ``"main"``).

        Raises:
            UserError: ``branch_id`` is ``"main"``, unknown, or current without ``force``.
        """
        self._check_open()
        if branch_id == MAIN:
            raise UserError("The main branch cannot be deleted; clear_session() empties it.")
        if branch_id not in await self._branch_ids():
            raise UserError(f"No branch {branch_id!r} in this session; see list_branches().")
        if branch_id == self.current_branch_id and not force:
            raise UserError(
                f"{branch_id!r} is the current branch: switch_to_branch() first, or pass "
                "force=True to delete it and go back to 'main'."
            )
        await run_write(lambda: self._delete_branch(branch_id))
        if branch_id == self.current_branch_id:
            self.current_branch_id = MAIN

    async def list_branches(self) -> list[dict[str, Any]]:
        """Each branch: ``branch_id``, ``message_count``, ``user_turns``, ``is_current`` and
        ``created_at``."""
        rows = await self._read(
            f"SELECT b.branch_id, COUNT(s.id), SUM(s.kind = 'user'), b.created_at FROM "
            f"{self._branches} b LEFT JOIN {self._structure} s ON s.session_id = b.session_id "
            "AND s.branch_id = b.branch_id WHERE b.session_id = ? GROUP BY b.branch_id "
            "ORDER BY b.rowid",
            (self.session_id,),
        )
        return [
            {
                "branch_id": branch,
                "message_count": count,
                "user_turns": turns or 0,
                "is_current": branch == self.current_branch_id,
                "created_at": created,
            }
            for branch, count, turns, created in rows
        ]

    async def get_conversation_turns(self, branch_id: str | None = None) -> list[dict[str, Any]]:
        """The user turns of a branch (default: the current one): ``turn``, ``content`` (the
        first 100 characters), ``full_content``, ``timestamp`` and ``can_branch``."""
        return await self._turns(branch_id, None)

    async def find_turns_by_content(
        self, search_term: str, branch_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The user turns whose message contains ``search_term`` (case-insensitive)."""
        if not isinstance(search_term, str) or not search_term:
            raise UserError(f"search_term must be a non-empty string, got {search_term!r}.")
        return await self._turns(branch_id, search_term.lower())

    async def get_conversation_by_turns(
        self, branch_id: str | None = None
    ) -> dict[int, list[dict[str, str | None]]]:
        """The items of a branch by turn: ``{turn: [{"type": kind, "tool_name": name}, ...]}``."""
        rows = await self._read(
            f"SELECT turn, kind, tool_name FROM {self._structure} WHERE session_id = ? AND "
            "branch_id = ? ORDER BY position",
            (self.session_id, branch_id or self.current_branch_id),
        )
        grouped: dict[int, list[dict[str, str | None]]] = {}
        for turn, kind, tool in rows:
            grouped.setdefault(turn, []).append({"type": kind, "tool_name": tool})
        return grouped

    async def get_tool_usage(self, branch_id: str | None = None) -> list[tuple[str, int, int]]:
        """``(tool_name, calls, turn)`` for each tool called in each turn of a branch."""
        rows = await self._read(
            f"SELECT tool_name, COUNT(*), turn FROM {self._structure} WHERE session_id = ? "
            "AND branch_id = ? AND kind = 'tool_call' GROUP BY turn, tool_name "
            "ORDER BY turn, tool_name",
            (self.session_id, branch_id or self.current_branch_id),
        )
        return [(name, count, turn) for name, count, turn in rows]

    # -- usage ---------------------------------------------------------------------------------

    async def store_run_usage(self, result: Any) -> None:
        """Add ``result``'s token usage to the current branch's latest user turn."""
        self._check_open()
        usage = result.context_wrapper.usage
        if not usage.requests:
            return
        details = json.dumps(
            {
                "input_tokens_details": {"cached_tokens": usage.input_tokens_details.cached_tokens},
                "output_tokens_details": {
                    "reasoning_tokens": usage.output_tokens_details.reasoning_tokens
                },
            }
        )
        row = (
            usage.requests,
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            details,
        )
        await run_write(lambda: self._store_usage(row))

    async def get_session_usage(self, branch_id: str | None = None) -> dict[str, int] | None:
        """Summed usage of a branch, or of all branches: ``requests``, ``input_tokens``,
        ``output_tokens``, ``total_tokens`` and ``total_turns``; None when nothing is stored."""
        where, params = "session_id = ?", [self.session_id]
        if branch_id is not None:
            where, params = where + " AND branch_id = ?", [*params, branch_id]
        (row,) = await self._read(
            "SELECT SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(total_tokens), "
            f"COUNT(*) FROM {self._usage} WHERE {where}",
            tuple(params),
        )
        if not row[4]:
            return None
        keys = ("requests", "input_tokens", "output_tokens", "total_tokens", "total_turns")
        return dict(zip(keys, row, strict=True))

    async def get_turn_usage(
        self, user_turn_number: int | None = None, branch_id: str | None = None
    ) -> list[dict[str, Any]] | dict[str, Any]:
        """Usage per user turn of a branch (with the token details); one dict for
        ``user_turn_number`` (empty when that turn has none stored)."""
        rows = await self._read(
            "SELECT turn, requests, input_tokens, output_tokens, total_tokens, details "
            f"FROM {self._usage} WHERE session_id = ? AND branch_id = ? ORDER BY turn",
            (self.session_id, branch_id or self.current_branch_id),
        )
        keys = ("user_turn_number", "requests", "input_tokens", "output_tokens", "total_tokens")
        turns = [dict(zip(keys, row[:5], strict=True)) | json.loads(row[5]) for row in rows]
        if user_turn_number is None:
            return turns
        return next((t for t in turns if t["user_turn_number"] == user_turn_number), {})

    # -- work on worker threads ----------------------------------------------------------------

    async def _read(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        self._check_open()

        def read() -> list[Any]:
            with self._connection(write=False) as conn:
                return conn.execute(sql, params).fetchall()

        return await asyncio.to_thread(read)

    async def _branch_ids(self) -> set[str]:
        rows = await self._read(
            f"SELECT branch_id FROM {self._branches} WHERE session_id = ?",
            (self.session_id,),
        )
        return {branch for (branch,) in rows}

    async def _turns(self, branch_id: str | None, term: str | None) -> list[dict[str, Any]]:
        rows = await self._read(
            f"SELECT s.turn, m.message_data, s.created_at FROM {self._structure} s JOIN "
            f"{self.messages_table} m ON m.id = s.message_id WHERE s.session_id = ? AND "
            "s.branch_id = ? AND s.kind = 'user' ORDER BY s.position",
            (self.session_id, branch_id or self.current_branch_id),
        )
        turns = []
        for turn, data, created in rows:
            text = text_of(decode_item(data))
            if term is not None and term not in text.lower():
                continue
            preview = text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"
            turns.append(
                {
                    "turn": turn,
                    "content": preview,
                    "full_content": text,
                    "timestamp": created,
                    "can_branch": True,
                }
            )
        return turns
