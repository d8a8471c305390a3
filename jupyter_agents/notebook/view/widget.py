"""``RunWidget``: the live view of one agent run (anywidget: this class, one ES module, one CSS).

The widget is dumb: ``RunView`` owns the state and writes it
into two synced traits; the ES module (``static/run_view.js``) draws them and sends clicks back as
custom messages. Nothing the frontend does changes a trait (no echo, no trait round trips).

State and messages
==================

Their types are in ``jupyter_agents.notebook.view.widget_state`` (``Header``, the ``Block``
union, the messages each way), which the widget's JavaScript is type-checked against. In short:

- ``header``: the agent running now, model, status, times, tokens, ``live`` (clicks work).
- ``blocks``, in display order. Every block has an ``id``, stable and unique: tool cards are
  ``k<n>`` (an internal counter, one card per call object, never the model's call id, which is
  kept in ``call_id`` for display), other ids are prefixed ``t:`` text, ``r:`` reasoning, ``n:``
  notice, ``e:`` event. A ``rev`` is bumped on every change, so the frontend redraws only
  changed blocks (the final state after ``finish`` has no revs). Empty fields are left out, and
  so are two defaults: ``kind`` is "tool" and a tool's ``status`` is "done" when missing.
- A tool card's ``parts`` are its kind's ``DisplayPart`` s as they are (text cut at the view's
  limits); each frontend draws each part type in one place.

Frontend → kernel (``model.send``): ``hello`` (a view rendered, or lost track of text),
``decision`` (``id``: the card, ``request``: ``approval.request``, ``approved``, ``always``,
``message?``, ``arguments?``), ``stop``.

Kernel → frontend (``widget.send``): ``alive`` (the answer to hello: clicks will be heard),
``text`` (the whole text of a text block), ``append`` (more text; ``at`` is where it starts),
``decision_error`` (edited arguments refused; the card still waits).

While the run is live, text blocks carry no text in ``blocks``: it travels in ``text`` and
``append`` messages. A view applies an ``append`` whose ``at`` equals the length it has; one
that finds a gap says ``hello`` again and gets every text whole.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from .widget_state import KernelMessage

__all__ = ["STATIC", "RunWidget", "SyncPacer"]


STATIC = Path(__file__).parents[1] / "static"
"""Folder of the ES module and the stylesheet."""

MessageHandler = Callable[[dict[str, Any]], None]


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

    def reply(self, content: KernelMessage) -> None:
        """Send a custom message to every view of this widget."""
        self.send(dict(content))

    def __repr__(self) -> str:
        """What a frontend without widgets (or a headless run) shows while the view is live."""
        header = self.header or {}
        detail = f" · {header['detail']}" if header.get("detail") else ""
        return f"[live view] {header.get('agent', 'agent')} · {header.get('status', '')}{detail}"


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
