"""``RunWidget``: the live view of one agent run (anywidget: this class, one ES module, one CSS).

The widget is dumb: :class:`~jupyter_agents.notebook.view.RunView` owns the state and writes it
into two synced traits; the ES module (``static/run_view.js``) draws them and sends clicks back as
custom messages. Nothing the frontend does changes a trait (no echo, no trait round trips).

State (kernel → frontend, JSON)
===============================

``header`` (dict)::

    v           1                    schema version
    agent       str                  the agent running now (changes on handoffs)
    model       str                  model label
    status      "running" | "waiting" | "done" | "failed" | "cancelled" | "background"
    detail      str | None           error message, "stopped", ...
    started_at  int                  epoch ms; the frontend ticks the elapsed time itself
    ended_at    int | None           epoch ms, once the run ended
    tokens      {input, output, total} | None
    live        bool                 True until ``finish``: the run can take clicks

``blocks`` (list, in display order). Every block has an ``id``, stable and unique: a tool
card's id is its call id (``c:<call id>`` plus a ``call_id`` field if that clashes), other ids
are prefixed ``t:`` text, ``r:`` reasoning, ``n:`` notice, ``e:`` event. A ``rev`` is bumped on
every change, so the frontend redraws only changed blocks (the final state after ``finish`` has
no revs). Empty fields are left out, and so are two defaults: ``kind`` is "tool" and a tool's
``status`` is "done" when missing. Saved notebooks stay small.

- ``text``: ``text`` (markdown, streamed), ``agent``.
- ``reasoning``: ``text`` (summary; shown collapsed).
- ``tool`` (default kind): ``name``, ``args`` (compact JSON, cut at ``max_args_chars``),
  ``args_cut`` (original length), ``status`` ("running" | "waiting" | "done" | "error" |
  "rejected" | "cancelled"), ``ms`` (duration), ``output`` (cut at ``max_output_chars``),
  ``output_cut`` (original length), ``printed`` (the tail of what the tool printed),
  ``printed_cut`` (chars dropped from its start), ``approval`` (below).
- ``notice``: ``level`` ("info" | "warning" | "error"), ``text``.
- ``event``: ``label``, ``text``: handoffs, MCP listings, anything the view does not know.

``approval`` of a tool card::

    state       "pending" | "approved" | "rejected" | "expired" (the run ended undecided)
    attempt     int        bumped each time the runtime asks again for the same call
    interactive bool       buttons work (the request waits in the view's inbox)
    arguments   str        full arguments as JSON, for the editor (pending only)
    schema      dict       the tool's JSON schema (pending only)
    error       str        why the last edit was refused
    always      bool       the decision applies to later calls of this tool
    message     str        the rejection reason
    edited      bool       approved with edited arguments

Messages
========

Frontend → kernel (``model.send``)::

    {type: "hello"}                                   a view rendered
    {type: "decision", call_id, approved, always, message?, arguments?}
    {type: "stop"}

Kernel → frontend (``widget.send``)::

    {type: "alive"}                                   reply to hello: clicks will be heard
    {type: "decision_error", call_id, error}          edited arguments refused; still pending
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

__all__ = ["STATIC", "RunState", "RunWidget", "SyncPacer"]


STATIC = Path(__file__).parent / "static"
"""Folder of the ES module and the stylesheet."""

MessageHandler = Callable[[dict[str, Any]], None]
Block = dict[str, Any]

_DEFAULTS = {"kind": "tool", "status": "done"}
"""Fields left out of the synced state: the frontend assumes them (tool cards are the most
numerous blocks, so saved notebooks stay small)."""


def _copy(block: Block) -> Block:
    """A copy for syncing, without empty or default fields."""
    out = {}
    for key, value in block.items():
        if value is None or value is False or value == "" or _DEFAULTS.get(key) == value:
            continue
        out[key] = _copy(value) if key == "approval" else value
    return out


class RunWidget(anywidget.AnyWidget):
    """The live view of one run; see the module docstring for its state and messages."""

    _esm = STATIC / "run_view.js"
    _css = STATIC / "run_view.css"

    header: traitlets.Dict[str, Any] = traitlets.Dict().tag(sync=True)
    """Run-level state: agent, model, status, times, tokens, live."""

    blocks: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """Ordered blocks: text, reasoning, tool cards, notices, generic events."""

    def __init__(self, **kwargs: Any) -> None:
        """Create the widget; pass ``header`` / ``blocks`` to start from a state."""
        super().__init__(**kwargs)
        self._handlers: list[MessageHandler] = []
        self.on_msg(self._dispatch)

    def on_message(self, handler: MessageHandler) -> None:
        """Call ``handler(content)`` for every custom message from the frontend.

        Handlers may run on any thread (JupyterLab >= 4.4 sends comm messages on kernel
        subshells): they must only hand work over, never block or print.
        """
        self._handlers.append(handler)

    def _dispatch(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        for handler in list(self._handlers):
            handler(content)

    def reply(self, content: dict[str, Any]) -> None:
        """Send a custom message to every view of this widget."""
        self.send(content)


class SyncPacer:
    """Paces widget syncs: at most one per ``interval`` while changes keep coming.

    The first change after a quiet spell is synced at once; later ones wait until ``interval``
    has passed since the last sync (``loop.call_later`` on the run's loop). Changes may be
    reported from any thread. Without a loop, syncs happen inline, still at most one per
    ``interval``; the owner flushes whatever is left at the end.
    """

    def __init__(
        self,
        flush: Callable[[], None],
        *,
        interval: float,
        lock: threading.RLock,
        loop: asyncio.AbstractEventLoop | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Create a pacer.

        Args:
            flush: Sends the state; called with ``lock`` held.
            interval: Minimum seconds between two syncs.
            lock: The owner's state lock.
            loop: The run's loop; by default the one running at the first call.
            clock: Monotonic seconds.
        """
        self._flush = flush
        self.interval = interval
        self.lock = lock
        self.loop = loop
        self.clock = clock
        self.dirty = False
        self._last = float("-inf")
        self._timer: Any = None
        self._arming = False
        self.capture_loop()

    def capture_loop(self) -> None:
        """Adopt the running loop if none is known yet."""
        if self.loop is None:
            try:
                self.loop = asyncio.get_running_loop()
            except RuntimeError:
                pass

    def in_loop(self) -> bool:
        """Whether the caller runs on the pacer's loop."""
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def changed(self) -> None:
        """Note a change (``lock`` held): sync now or schedule one."""
        self.dirty = True
        if self._timer is not None or self._arming:
            if (
                self._timer is not None
                and self.clock() - self._last >= self.interval
                and self.in_loop()
            ):
                self.flush()  # the loop is too busy to run the timer (a stream that never
                # yields): sync inline, so the screen still follows
            return
        loop = self.loop if self.loop is not None and not self.loop.is_closed() else None
        if loop is None:
            if self.clock() - self._last >= self.interval:
                self.flush()
        elif self.in_loop():
            self._arm()
        else:
            self._arming = True
            try:
                loop.call_soon_threadsafe(self._arm)
            except RuntimeError:  # the loop closed meanwhile
                self._arming = False

    def flush(self) -> None:
        """Sync now if anything changed."""
        with self.lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self.dirty:
                self.dirty = False
                self._last = self.clock()
                self._flush()

    def _arm(self) -> None:
        with self.lock:
            self._arming = False
            if not self.dirty or self._timer is not None or self.loop is None:
                return
            wait = self._last + self.interval - self.clock()
            if wait <= 0:
                self.flush()
            else:
                self._timer = self.loop.call_later(wait, self.flush)

    def call_on_loop(self, work: Callable[[], None]) -> None:
        """Run ``work`` on the loop (from any thread); inline when there is no running loop."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running() or self.in_loop():
            work()
            return
        try:
            loop.call_soon_threadsafe(work)
        except RuntimeError:  # the loop closed meanwhile
            work()


class RunState:
    """The header and blocks a :class:`RunWidget` shows, with revs and cheap sync copies.

    Blocks are edited in place; :meth:`changed` bumps a block's rev and reports the change.
    Streamed text is kept as pending chunks until :meth:`snapshot` joins them.
    """

    def __init__(self, header: dict[str, Any], on_change: Callable[[], None]) -> None:
        """Create the state.

        Args:
            header: The initial header.
            on_change: Called after every change (with the owner's lock held).
        """
        self.header = header
        self.blocks: dict[str, Block] = {}
        self.final = False
        """Set when the run ended: snapshots then leave out revs (a saved notebook needs none)."""
        self._on_change = on_change
        self._copies: dict[str, Block] = {}
        self._chunks: dict[str, list[str]] = {}
        self._ids = itertools.count(1)

    def next_id(self) -> str:
        """A fresh number, for blocks whose source has no id."""
        return str(next(self._ids))

    def card(self, call_id: str, name: str | None = None) -> Block:
        """The tool card of ``call_id``, created (running) if new."""
        key = call_id
        if self.blocks.get(key, {}).get("kind") not in (None, "tool"):  # an id clash
            key = f"c:{call_id}"
        card = self.blocks.get(key)
        if card is None:
            card = self.blocks[key] = {"id": key, "kind": "tool", "rev": 0}
            card.update(name=name or "tool", status="running")
            if key != call_id:
                card["call_id"] = call_id
        elif name and card["name"] == "tool":
            card["name"] = name
        return card

    def text(self, key: str) -> Block:
        """The text block ``key``, created empty if new."""
        block = self.blocks.get(key)
        if block is None:
            block = self.blocks[key] = {"id": key, "kind": "text", "rev": 0, "text": ""}
        return block

    def append_text(self, key: str, chunk: str) -> None:
        """Stream ``chunk`` into text block ``key`` (joined at the next snapshot)."""
        block = self.text(key)
        self._chunks.setdefault(key, []).append(chunk)
        self.changed(block)

    def set_text(self, key: str, text: str, **fields: Any) -> None:
        """Replace the text of block ``key`` (the exact text of a finished message)."""
        block = self.text(key)
        self._chunks.pop(key, None)
        block.update(text=text, **fields)
        self.changed(block)

    def add(self, kind: str, key: str | None = None, **fields: Any) -> None:
        """Append a block (or replace block ``key``; its rev keeps growing)."""
        key = key or f"{kind[0]}:{self.next_id()}"
        old = self.blocks.get(key)
        block = {"id": key, "kind": kind, "rev": old["rev"] if old else 0, **fields}
        self.blocks[key] = block
        self.changed(block)

    def changed(self, block: Block | None = None) -> None:
        """Report a change (of ``block``, or of the header)."""
        if block is not None:
            block["rev"] += 1
        self._on_change()

    def snapshot(self) -> tuple[dict[str, Any], list[Block]]:
        """Exact header and blocks as fresh JSON-ready copies (unchanged blocks reuse theirs)."""
        for key, chunks in self._chunks.items():
            self.blocks[key]["text"] += "".join(chunks)
        self._chunks.clear()
        blocks = []
        for block in self.blocks.values():
            copy = self._copies.get(block["id"])
            if copy is None or copy["rev"] != block["rev"]:
                copy = self._copies[block["id"]] = _copy(block)
            blocks.append(copy)
        if self.final:
            blocks = [{k: v for k, v in b.items() if k != "rev"} for b in blocks]
        header = dict(self.header)
        if header.get("tokens") is not None:
            header["tokens"] = dict(header["tokens"])
        return header, blocks
