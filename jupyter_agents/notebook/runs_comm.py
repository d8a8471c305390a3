"""The ``jupyter_agents.runs`` comm: the kernel's runs for the lab extension (runs panel,
status bar, notifications), and its decisions and Stop requests back.

Either side may open it. The kernel opens one when the extension is loaded (a frontend that
registered the target gets it); a frontend that connects later (a reloaded page) opens one to
the kernel's target. Messages, all JSON objects with a ``type``, typed in
``runs_contract.py`` (the lab extension's copy is generated from it):

kernel → frontend
    ``snapshot`` (every run) when the comm opens or on ``hello``, each followed by ``mode``
    (the notebook's mode, ``%agent mode``), which is also sent to every open comm whenever the
    mode changes; ``run`` whenever a run changes (``RunRecord.to_json``); ``decided`` answering
    ``decide``.
frontend → kernel
    ``hello``; ``decide`` (approve or reject a waiting call); ``stop`` (a run); ``stop_all``;
    ``settings`` (the default approval mode of cells without ``--approve`` and the headless
    grace period; ``JUPYTER_AGENTS_APPROVE`` / ``JUPYTER_AGENTS_APPROVAL_GRACE`` still win);
    ``set_mode`` (the notebook's mode, as ``%agent mode`` sets it; one not in ``MODES`` is
    ignored).

Nothing a frontend sends is trusted: unknown types and malformed fields are ignored, and a
decision only settles a request that is waiting in that run (stale and repeated ones get
``"ok": false``).

While a run is live, waits for a person, or left a tool call running in the background, the
kernel also sends ``{"type": "activity"}`` every ``ACTIVITY_INTERVAL`` seconds, on a comm of
its own that no frontend opened (frontends ignore it). Jupyter Server counts every IOPub
``comm_msg`` as activity, and a cell awaiting a click sends nothing else, so an idle-culling
server (``MappingKernelManager.cull_idle_timeout``) would otherwise shut down the kernel under a
run waiting for its person, browser open or not.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from comm import create_comm, get_comm_manager

from .comm_names import RUNS_TARGET as TARGET
from .comm_set import CommSet
from .run_registry import RunRegistry

if TYPE_CHECKING:
    from .comm_names import Mode
    from .runs_contract import Activity, Decided, ModeChanged, RunChanged, RunReport, Snapshot

__all__ = ["ACTIVITY_INTERVAL", "TARGET", "Heartbeat", "RunsChannel", "activity_interval"]

logger = logging.getLogger("jupyter_agents")

ACTIVITY: Activity = {"type": "activity"}

ACTIVITY_INTERVAL = 30.0
"""Seconds between activity messages while a run is live (``JUPYTER_AGENTS_ACTIVITY_INTERVAL``
sets it; 0 sends none). Well under any idle-culling timeout in use (Jupyter Server's culler
checks every 300 s by default; JupyterHub's idle culler's default timeout is an hour)."""


def activity_interval(environ: Mapping[str, str] = os.environ) -> float:
    """The interval ``JUPYTER_AGENTS_ACTIVITY_INTERVAL`` asks for (seconds, 0 for none), else
    ``ACTIVITY_INTERVAL``."""
    raw = environ.get("JUPYTER_AGENTS_ACTIVITY_INTERVAL", "").strip()
    if not raw:
        return ACTIVITY_INTERVAL
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        logger.warning(
            "JUPYTER_AGENTS_ACTIVITY_INTERVAL=%r is not a number of seconds (0 or more); using %g.",
            raw,
            ACTIVITY_INTERVAL,
        )
        return ACTIVITY_INTERVAL
    return seconds


class Heartbeat:
    """Calls ``send()`` every ``interval`` seconds on ``loop`` while ``live()`` is true.

    ``check`` (from any thread) starts it once something is live; it stops by itself at
    the first beat that finds nothing live.
    """

    def __init__(
        self,
        send: Callable[[], None],
        live: Callable[[], bool],
        interval: float,
        loop: asyncio.AbstractEventLoop | None,
    ) -> None:
        self.send, self.live, self.interval, self.loop = send, live, interval, loop
        self._timer: asyncio.TimerHandle | None = None

    def check(self) -> None:
        """Start beating if something is live and no beat is due (any thread)."""
        loop = self.loop
        if self.interval <= 0 or loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._arm)
        except RuntimeError:  # closed meanwhile
            pass

    def stop(self) -> None:
        """Stop beating (on the loop)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        if self._timer is None and self.live() and self.loop is not None:
            self._timer = self.loop.call_later(self.interval, self._beat)

    def _beat(self) -> None:
        self._timer = None
        if not self.live():
            return
        try:
            self.send()
        except Exception:  # a failed beat must not end the beating
            logger.debug("could not send an activity message", exc_info=True)
        self._arm()


class RunsChannel:
    """Every open ``jupyter_agents.runs`` comm of this kernel, fed from ``registry``."""

    def __init__(self, registry: RunRegistry, interval: float | None = None) -> None:
        """``interval``: seconds between activity messages (None: ``activity_interval``)."""
        self.registry = registry
        self._comms = CommSet("runs", self._on_msg)
        self._unlisten: Callable[[], None] | None = None
        self._interval = activity_interval() if interval is None else interval
        self.heartbeat: Heartbeat | None = None
        """Sends the activity messages (made by ``open``)."""

    def open(self) -> None:
        """Register the target and open a comm to the frontend (needs a kernel)."""
        self._comms.bind_loop()
        get_comm_manager().register_target(TARGET, self._opened_by_frontend)
        beacon = create_comm(target_name=TARGET, primary=False)  # never opened: no frontend has it
        self.heartbeat = Heartbeat(
            lambda: beacon.send(dict(ACTIVITY)),
            self.registry.live,
            self._interval,
            self._comms.loop,
        )
        self._unlisten = self.registry.listen(self._changed)
        self.registry.mode_listeners.append(self._mode_changed)
        empty: Snapshot = {"type": "snapshot", "runs": []}
        comm = create_comm(target_name=TARGET, data=empty)
        self._comms.adopt(comm)
        self._comms.send(comm, self._mode())

    def close(self) -> None:
        """Close every comm and stop listening."""
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._mode_changed in self.registry.mode_listeners:
            self.registry.mode_listeners.remove(self._mode_changed)
        if self.heartbeat is not None:
            self._comms.on_loop(self.heartbeat.stop)
        self._comms.close()

    # -- comms -----------------------------------------------------------------------------

    def _opened_by_frontend(self, comm: Any, _open_msg: dict[str, Any]) -> None:
        self._comms.adopt(comm)
        self._send_snapshot(comm)

    def _send_snapshot(self, comm: Any) -> None:
        """Every run, then the notebook's mode."""
        snapshot: Snapshot = {"type": "snapshot", "runs": self.registry.snapshot()}
        self._comms.send(comm, snapshot)
        self._comms.send(comm, self._mode())

    def _mode(self, mode: Mode | None = None) -> ModeChanged:
        return {"type": "mode", "mode": self.registry.mode if mode is None else mode}

    def _mode_changed(self, mode: Mode) -> None:
        changed = self._mode(mode)
        for comm in list(self._comms.comms):
            self._comms.send(comm, changed)

    def _changed(self, run: RunReport) -> None:
        changed: RunChanged = {"type": "run", "run": run}
        for comm in list(self._comms.comms):
            self._comms.send(comm, changed)
        if self.heartbeat is not None:
            self.heartbeat.check()

    # -- messages from a frontend ------------------------------------------------------------

    def _on_msg(self, comm: Any, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data")
        if not isinstance(data, dict):
            return
        kind = data.get("type")
        if kind == "hello":
            self._send_snapshot(comm)
        elif kind == "decide":
            run, request = data.get("run"), data.get("request")
            message = data.get("message")
            if not (isinstance(run, str) and isinstance(request, str)):
                return
            approved = data.get("approved") is True
            text = message if isinstance(message, str) and message.strip() else None

            def decide() -> None:
                ok = self.registry.decide(run, request, approved, text)
                decided: Decided = {"type": "decided", "run": run, "request": request, "ok": ok}
                self._comms.send(comm, decided)

            self._comms.on_loop(decide)
        elif kind == "stop" and isinstance(data.get("run"), str):
            self._comms.on_loop(lambda: self.registry.stop(data["run"]))
        elif kind == "stop_all":
            self._comms.on_loop(self.registry.stop_all)
        elif kind == "settings":
            approve, grace = data.get("approve"), data.get("grace")
            self._comms.on_loop(lambda: self.registry.configure(approve, grace))
        elif kind == "set_mode":
            mode = data.get("mode")
            self._comms.on_loop(lambda: self.registry.set_mode(mode))
