"""A fake frontend: a real kernel driven by jupyter_client, sending what JupyterLab sends.

It collects iopub messages on a thread, tracks widget models (comm_open + update messages),
and sends custom widget messages exactly like anywidget's ``model.send`` does.
"""

from __future__ import annotations

import os
import queue
import threading
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from jupyter_client.manager import KernelManager

Predicate = Callable[[], Any]


class Frontend:
    """One kernel and the frontend side of its widgets."""

    def __init__(self, env: dict[str, str] | None = None, client: Any = None) -> None:
        """Start a kernel (with ``env`` added to this process's), or drive the one ``client``
        (a ``BlockingKernelClient``) connects to: a kernel a Jupyter server started."""
        self.km: KernelManager | None = None
        if client is None:
            self.km = KernelManager(kernel_name="python3")
            kernel_env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
            kernel_env.update(env or {})
            self.km.start_kernel(env=kernel_env)
            self.kc = self.km.client()
            self.kc.start_channels()
        else:  # no heartbeat: before its first beat, the client takes the kernel for dead
            self.kc = client
            self.kc.start_channels(hb=False)
        self.kc.wait_for_ready(timeout=60)
        self.iopub: list[dict[str, Any]] = []
        self.models: dict[str, dict[str, Any]] = {}
        self.custom: dict[str, list[Any]] = {}
        self.comm_targets: dict[str, str] = {}
        """Target name of every comm the kernel opened, by comm id."""
        self.comm_data: dict[str, list[Any]] = {}
        """The data of every comm message from the kernel, by comm id."""
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._collect, daemon=True)
        self._thread.start()
        self._replies: dict[str, dict[str, Any]] = {}
        self._in_flight: set[str] = set()
        """Execute requests sent by :meth:`execute` whose reply has not arrived yet."""

    @property
    def manager(self) -> KernelManager:
        """The manager of the kernel this frontend started (there is none for a ``client``'s)."""
        assert self.km is not None, "this frontend drives a kernel it did not start"
        return self.km

    def close(self) -> None:
        self._stop.set()
        self.kc.stop_channels()
        if self.km is not None:
            self.km.shutdown_kernel(now=True)

    # -- iopub ---------------------------------------------------------------------------

    def _collect(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.kc.get_iopub_msg(timeout=0.1)
            except queue.Empty:
                continue
            except Exception:
                return
            with self._changed:
                self.iopub.append(msg)
                self._track(msg)
                self._changed.notify_all()

    def _track(self, msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "comm_open":
            self.comm_targets[content["comm_id"]] = content.get("target_name", "")
            self.comm_data.setdefault(content["comm_id"], []).append(content.get("data"))
        elif msg["msg_type"] == "comm_msg":
            self.comm_data.setdefault(content["comm_id"], []).append(content["data"])
        if msg["msg_type"] == "comm_open" and content.get("target_name") == "jupyter.widget":
            self.models[content["comm_id"]] = dict(content["data"].get("state", {}))
        elif msg["msg_type"] == "comm_msg":
            data = content["data"]
            comm_id = content["comm_id"]
            if data.get("method") == "update" and comm_id in self.models:
                self.models[comm_id].update(data.get("state", {}))
            elif data.get("method") == "custom":
                self.custom.setdefault(comm_id, []).append(data.get("content"))

    def wait_for(self, predicate: Predicate, timeout: float = 20, what: str = "") -> Any:
        """Wait until ``predicate()`` is truthy (re-checked on every iopub message)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out waiting for {what or predicate}")
                self._changed.wait(min(left, 0.5))

    def outputs(self, msg_id: str) -> list[dict[str, Any]]:
        """iopub messages caused by the execute request ``msg_id``."""
        with self._changed:
            return [m for m in self.iopub if m["parent_header"].get("msg_id") == msg_id]

    def stdout(self, msg_id: str) -> str:
        return "".join(
            m["content"]["text"]
            for m in self.outputs(msg_id)
            if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
        )

    # -- widgets -------------------------------------------------------------------------

    def run_widgets(self) -> list[str]:
        """Comm ids of run widgets, oldest first."""
        with self._changed:
            return [cid for cid, state in self.models.items() if "header" in state]

    def widget(self, index: int = -1, timeout: float = 20) -> str:
        """The comm id of a run widget (waits for it)."""
        self.wait_for(
            lambda: len(self.run_widgets()) >= (index + 1 if index >= 0 else 1),
            timeout,
            "a run widget",
        )
        return self.run_widgets()[index]

    def state(self, comm_id: str) -> dict[str, Any]:
        with self._changed:
            return dict(self.models[comm_id])

    def send_custom(self, comm_id: str, content: dict[str, Any]) -> None:
        """What anywidget's ``model.send(content)`` sends."""
        msg = self.kc.session.msg(
            "comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
        )
        self.kc.shell_channel.send(msg)

    def open_comm(self, target: str, data: dict[str, Any] | None = None) -> str:
        """Open a comm to ``target`` in the kernel, as a frontend extension does."""
        comm_id = uuid.uuid4().hex
        content = {"comm_id": comm_id, "target_name": target, "data": data or {}}
        self.kc.shell_channel.send(self.kc.session.msg("comm_open", content))
        return comm_id

    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        """A plain comm message (not a widget's) with ``data``."""
        content = {"comm_id": comm_id, "data": data}
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", content))

    def comm_messages(self, comm_id: str) -> list[Any]:
        with self._changed:
            return list(self.comm_data.get(comm_id, []))

    def hello(self, comm_id: str) -> None:
        """What the widget's JS sends once it has rendered."""
        self.send_custom(comm_id, {"type": "hello"})

    # -- shell ---------------------------------------------------------------------------

    def execute(self, code: str, cell_id: str | None = None) -> str:
        """Send an execute request (like a notebook cell) and return its msg id."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        msg = self.kc.session.msg("execute_request", content)
        msg["metadata"]["cellId"] = cell_id or str(uuid.uuid4())
        self.kc.shell_channel.send(msg)
        msg_id = str(msg["header"]["msg_id"])
        self._in_flight.add(msg_id)
        return msg_id

    def reply(self, msg_id: str, timeout: float = 30) -> dict[str, Any]:
        """The execute_reply for ``msg_id`` (other replies are kept for later)."""
        deadline = time.monotonic() + timeout
        while msg_id not in self._replies:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply for {msg_id}")
            self._receive(min(left, 0.5))
        reply = self._replies.pop(msg_id)
        # The outputs travel on iopub, the reply on the shell socket: either may come first.
        # The idle status follows the request's last output on iopub, so once it is here every
        # output is too (and after an error, what the kernel aborts behind it is done).
        self.wait_for(lambda: self._idle(msg_id), max(deadline - time.monotonic(), 5), "idle")
        return reply

    def _idle(self, msg_id: str) -> bool:
        return any(
            m["msg_type"] == "status"
            and m["content"].get("execution_state") == "idle"
            and m["parent_header"].get("msg_id") == msg_id
            for m in reversed(self.iopub)
        )

    def _receive(self, timeout: float) -> None:
        try:
            msg = self.kc.get_shell_msg(timeout=timeout)
        except queue.Empty:
            return
        parent = msg["parent_header"].get("msg_id")
        self._in_flight.discard(parent)
        self._replies[parent] = msg

    def settle(self, timeout: float = 30) -> None:
        """Make the kernel idle again after a test: a cell a failed test left running (waiting
        for an approval that will never come) is interrupted, and replies nobody asked for are
        dropped, so the next test starts on a kernel that answers."""
        while self._in_flight:
            before = set(self._in_flight)
            self._receive(0.2)
            if self._in_flight == before:
                break
        if self._in_flight:
            self.interrupt()
            deadline = time.monotonic() + timeout
            while self._in_flight and time.monotonic() < deadline:
                self._receive(0.5)
            if self._in_flight:
                raise TimeoutError(f"the kernel did not settle: {sorted(self._in_flight)}")
        self._replies.clear()

    def run(self, code: str, timeout: float = 30, cell_id: str | None = None) -> dict[str, Any]:
        """Execute and wait; raises if the cell failed."""
        msg_id = self.execute(code, cell_id)
        reply = self.reply(msg_id, timeout)
        if reply["content"]["status"] != "ok":
            raise AssertionError(f"cell failed: {reply['content']}")
        return reply

    def restart(self, timeout: float = 60) -> None:
        """Restart the kernel this frontend started (it may be dead) and wait until it answers.

        ``kc.wait_for_ready`` is not used: it reads iopub too, and two threads reading one
        socket interleave the frames of its messages (the collector thread owns iopub)."""
        self.manager.restart_kernel(now=True)
        deadline = time.monotonic() + timeout
        while True:
            msg_id = str(self.kc.kernel_info())
            answered = time.monotonic() + 1
            while msg_id not in self._replies and time.monotonic() < answered:
                self._receive(0.2)
            if self._replies.pop(msg_id, None) is not None:
                try:  # iopub is connected once the request's status reached the collector
                    self.wait_for(partial(self._busy_or_idle, msg_id), 1, "iopub")
                    return
                except TimeoutError:
                    pass
            if time.monotonic() > deadline:
                raise TimeoutError("the restarted kernel did not answer kernel_info")

    def _busy_or_idle(self, msg_id: str) -> bool:
        return any(
            m["msg_type"] == "status" and m["parent_header"].get("msg_id") == msg_id
            for m in reversed(self.iopub)
        )

    def interrupt(self) -> None:
        assert self.km is not None, "a kernel started by a server is interrupted through it"
        self.km.interrupt_kernel()
