"""One chat turn: the notebook's agent, run in the kernel through the machinery of a
``%%agent`` cell (``cells/cell.py``: the same view, runs list, approvals, plans, questions,
costs and budget), with three differences:

- the message is taken literally (no ``{expression}`` interpolation), and what the person
  attached (the active cell, the selection, ``@`` mentions; ``mentions.py``) follows it as
  labelled context;
- each thread has its own conversation (``host.conversation("chat:THREAD")``); a thread the
  kernel does not know (continued after a restart) starts from the saved texts the panel sends;
- a turn's run is named ``THREAD/N`` where a cell's is named by its cell id (no cell has a
  ``/`` in its id), so the runs panel and ``%agent cost`` list it; it always runs live (a
  thread's runs are not recorded into a cell).

The panel executes ``await chat_turn(REQUEST)`` (``labextension/src/kernelrun/``), REQUEST
being the JSON of ``contract.TurnRequest`` as one Python string literal, so the run's widget is
displayed in that execution's output, in the panel.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from IPython import get_ipython
from IPython.core.error import UsageError

from ..cells.cell import run_beside
from ..host import NotebookHost, current_host
from .mentions import MentionRefused, context_text
from .prompts import PromptRefused, prompt_text
from .request import ChatRequest, RequestError, parse_request

__all__ = ["chat_turn", "conversation_name", "loaded_host", "turn_prompt"]

_turns: defaultdict[str, Iterator[int]] = defaultdict(lambda: itertools.count(1))


def conversation_name(thread: str) -> str:
    """The conversation of ``thread`` (agent names are Python names: no ``:`` in them)."""
    return f"chat:{thread}"


def loaded_host(what: str = "chat") -> NotebookHost:
    """The extension's host, loading the extension first when ``what`` (the chat, an assist)
    is the first to use it."""
    host = current_host()
    if host is None:
        shell = get_ipython()
        if shell is None:
            raise UsageError(f"{what}: not in an IPython kernel")
        shell.extension_manager.load_extension("jupyter_agents")
        host = current_host()
    if host is None:
        raise UsageError(f"{what}: run %load_ext jupyter_agents first.")
    return host


async def _cells(host: NotebookHost, request: ChatRequest) -> list[dict[str, Any]] | None:
    """The notebook's cells when the turn needs them (None: no frontend holds the notebook)."""
    wanted = request.active_cell is not None or any(m["kind"] == "cell" for m in request.mentions)
    document = host.document
    if not wanted or document is None or await document.ready() is None:
        return None
    from ..workspace.document_comm import NoFrontend

    try:
        return await document.cells()
    except NoFrontend:
        return None


async def turn_prompt(host: NotebookHost, request: ChatRequest) -> str:
    """What the model gets as the person's message: the message (or the slash command's
    prompt), then the context they attached.

    Raises:
        UsageError: A mention is refused, the prompt cannot be had, or the message is empty.
    """
    message = request.message
    try:
        if request.command is not None:
            command = request.command
            message = await prompt_text(host.mcp_servers, command["name"], command["args"])
        context = context_text(request, host.shell.user_ns, await _cells(host, request), Path.cwd())
    except (MentionRefused, PromptRefused) as e:
        raise UsageError(f"chat: {e}") from None
    if not message.strip():
        raise UsageError("chat: the message is empty.")
    return f"{message.strip()}\n\n{context}" if context else message.strip()


async def _seed(host: NotebookHost, request: ChatRequest, name: str) -> None:
    """Start a thread the kernel does not know from its saved texts (never more: no tool
    call, approval or recording comes from a notebook's metadata)."""
    conversation = host.conversation(name)
    if len(conversation) or not request.history:
        return
    items = [{"role": h["role"], "content": h["text"]} for h in request.history]
    await conversation.record(f"{request.thread}/saved", items)


async def chat_turn(request: str) -> None:
    """Run one chat turn (``request``: the JSON of ``contract.TurnRequest``) in place: the
    run's view is displayed in this execution's output."""
    host = loaded_host()
    try:
        parsed = parse_request(request)
    except RequestError as e:
        raise UsageError(f"chat: {e}") from None
    prompt = await turn_prompt(host, parsed)
    name = conversation_name(parsed.thread)
    await _seed(host, parsed, name)
    cell = f"{parsed.thread}/{next(_turns[parsed.thread])}"
    await run_beside(host, prompt, cell=cell, conversation=name, mode=parsed.mode)
