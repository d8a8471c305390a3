"""The ``jupyter_agents.runs`` comm: the kernel's runs for the lab extension (runs panel,
status bar, notifications), and its decisions and Stop requests back.

Either side may open it. The kernel opens one when the extension is loaded (a frontend that
registered the target gets it); a frontend that connects later (a reloaded page) opens one to
the kernel's target. Messages, all JSON objects with a ``type``:

kernel → frontend
    ``{"type": "snapshot", "runs": [run, ...]}`` when the comm opens or on ``hello``;
    ``{"type": "run", "run": run}`` whenever a run changes (see ``RunRecord.to_json``; its
    ``plan`` is ``{"completed": int, "total": int, "current": str | None}`` once the run has
    one, else null);
    ``{"type": "decided", "run": id, "request": id, "ok": bool}`` answering ``decide``.
frontend → kernel
    ``{"type": "hello"}``; ``{"type": "decide", "run": id, "request": id, "approved": bool,
    "message": str | None}``; ``{"type": "stop", "run": id}``; ``{"type": "stop_all"}``;
    ``{"type": "settings", "approve": "ask" | "auto" | "deny", "grace": seconds}`` (the
    default approval mode of cells without ``--approve`` and the headless grace period;
    ``JUPYTER_AGENTS_APPROVE`` / ``JUPYTER_AGENTS_APPROVAL_GRACE`` still win).

Nothing a frontend sends is trusted: unknown types and malformed fields are ignored, and a
decision only settles a request that is waiting in that run (stale and repeated ones get
``"ok": false``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from comm import create_comm, get_comm_manager

from .comm_set import CommSet
from .run_registry import RunRegistry

__all__ = ["TARGET", "RunsChannel"]

TARGET = "jupyter_agents.runs"


class RunsChannel:
    """Every open ``jupyter_agents.runs`` comm of this kernel, fed from ``registry``."""

    def __init__(self, registry: RunRegistry) -> None:
        self.registry = registry
        self._comms = CommSet("runs", self._on_msg)
        self._unlisten: Callable[[], None] | None = None

    def open(self) -> None:
        """Register the target and open a comm to the frontend (needs a kernel)."""
        self._comms.bind_loop()
        get_comm_manager().register_target(TARGET, self._opened_by_frontend)
        self._unlisten = self.registry.listen(self._broadcast)
        comm = create_comm(target_name=TARGET, data={"type": "snapshot", "runs": []})
        self._comms.adopt(comm)

    def close(self) -> None:
        """Close every comm and stop listening."""
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._comms.close()

    # -- comms -----------------------------------------------------------------------------

    def _opened_by_frontend(self, comm: Any, _open_msg: dict[str, Any]) -> None:
        self._comms.adopt(comm)
        self._comms.send(comm, {"type": "snapshot", "runs": self.registry.snapshot()})

    def _broadcast(self, run: dict[str, Any]) -> None:
        for comm in list(self._comms.comms):
            self._comms.send(comm, {"type": "run", "run": run})

    # -- messages from a frontend ------------------------------------------------------------

    def _on_msg(self, comm: Any, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data")
        if not isinstance(data, dict):
            return
        kind = data.get("type")
        if kind == "hello":
            self._comms.send(comm, {"type": "snapshot", "runs": self.registry.snapshot()})
        elif kind == "decide":
            run, request = data.get("run"), data.get("request")
            message = data.get("message")
            if not (isinstance(run, str) and isinstance(request, str)):
                return
            approved = data.get("approved") is True
            text = message if isinstance(message, str) and message.strip() else None

            def decide() -> None:
                ok = self.registry.decide(run, request, approved, text)
                self._comms.send(
                    comm, {"type": "decided", "run": run, "request": request, "ok": ok}
                )

            self._comms.on_loop(decide)
        elif kind == "stop" and isinstance(data.get("run"), str):
            self._comms.on_loop(lambda: self.registry.stop(data["run"]))
        elif kind == "stop_all":
            self._comms.on_loop(self.registry.stop_all)
        elif kind == "settings":
            approve, grace = data.get("approve"), data.get("grace")
            self._comms.on_loop(lambda: self.registry.configure(approve, grace))
