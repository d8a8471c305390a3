"""The ``jupyter_agents.chat`` comm: names for the chat panel's completions.

The frontend opens it (the kernel registers the target when the extension loads) and sends
``complete`` (``contract.Complete``): the user's variables (``var``, as ``list_variables``
describes them), the files under the notebook's folder (``file``), or the MCP servers' prompts
(``prompt``) starting with a prefix; the kernel answers ``completions`` with the same ``id``.
Only names and one-line descriptions go back. A malformed message is ignored.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comm import get_comm_manager

from ..comm_names import CHAT_TARGET as TARGET
from ..comm_set import CommSet

if TYPE_CHECKING:
    from ..host import NotebookHost
    from .contract import Completion, Completions

__all__ = ["TARGET", "ChatChannel", "completions"]

logger = logging.getLogger("jupyter_agents")

MAX_PREFIX = 1_000


async def completions(host: NotebookHost, kind: str, prefix: str) -> list[Completion]:
    """The names of ``kind`` (``var``, ``file``, ``prompt``) starting with ``prefix``."""
    from .mentions import file_names, variable_names
    from .prompts import prompt_names

    if kind == "var":
        return variable_names(host.shell.user_ns, prefix)
    if kind == "file":
        return file_names(Path.cwd(), prefix)
    if kind == "prompt":
        return await prompt_names(host.mcp_servers, prefix)
    return []


class ChatChannel:
    """Every open ``jupyter_agents.chat`` comm of this kernel."""

    def __init__(self, host: NotebookHost) -> None:
        self.host = host
        self._comms = CommSet("chat", self._on_msg)
        self._tasks: set[asyncio.Task[None]] = set()

    def open(self) -> None:
        """Register the target (in a kernel)."""
        self._comms.bind_loop()
        get_comm_manager().register_target(TARGET, self._opened_by_frontend)

    def close(self) -> None:
        """Close every comm and forget the target."""
        self._comms.close()
        try:
            get_comm_manager().unregister_target(TARGET, self._opened_by_frontend)
        except Exception:  # already gone with its kernel
            pass

    def _opened_by_frontend(self, comm: Any, _open_msg: dict[str, Any]) -> None:
        self._comms.adopt(comm)

    def _on_msg(self, comm: Any, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data")
        if not isinstance(data, dict) or data.get("type") != "complete":
            return
        request, kind, prefix = data.get("id"), data.get("kind"), data.get("prefix")
        if not isinstance(request, int) or isinstance(request, bool):
            return
        if kind not in ("var", "file", "prompt") or not isinstance(prefix, str):
            return
        prefix = prefix[:MAX_PREFIX]

        async def answer() -> None:
            try:
                items = await completions(self.host, kind, prefix)
            except Exception:
                logger.debug("chat completion failed", exc_info=True)
                items = []
            reply: Completions = {"type": "completions", "id": request, "items": items}
            self._comms.send(comm, reply)

        def start() -> None:
            task = asyncio.ensure_future(answer())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self._comms.on_loop(start)
