"""An MCP server's questions (``elicitation/create``), answered by the person running the
agent: the server asks during one of its tool calls, and the question goes where that call's
questions go (``ask_user``: the call's card in a notebook,
the terminal headless). With nobody to ask (no call in flight, a run that pauses for
decisions), the request is declined.

Everything in the request is untrusted: the message is shown as text with its control
characters replaced, the form must be one a person can fill in (strings, numbers, booleans,
string enums; keywords a form cannot show are ignored), and URL requests are declined (a
server's link is never opened from here).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp import types as mcp_types

from ..questions import Asker, Question, choices_problem, form_problem
from .untrusted import cap_text, printable

__all__ = ["Elicitations"]

logger = logging.getLogger("jupyter_agents.mcp")

MAX_MESSAGE_CHARS = 2_000


class Elicitations:
    """The elicitation callback of one server's sessions: asks whoever called it last."""

    def __init__(self, server_name: str) -> None:
        self._server = server_name
        self._askers: list[tuple[asyncio.AbstractEventLoop, Asker]] = []
        self._lock = threading.Lock()

    @contextmanager
    def asking(self, ask: Asker | None) -> Iterator[None]:
        """While a tool call is in flight: its questions go to ``ask`` (on this loop)."""
        if ask is None:
            yield
            return
        entry = (asyncio.get_running_loop(), ask)
        with self._lock:
            self._askers.append(entry)
        try:
            yield
        finally:
            with self._lock:
                self._askers.remove(entry)

    async def __call__(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        with self._lock:
            entry = self._askers[-1] if self._askers else None
        if entry is None or not isinstance(params, mcp_types.ElicitRequestFormParams):
            return mcp_types.ElicitResult(action="decline")
        form = params.requested_schema
        problem = form_problem(form, loose=True)
        if problem:
            logger.info("MCP server %r asked with a form we cannot show: %s", self._server, problem)
            return mcp_types.ElicitResult(action="decline")
        message = cap_text(printable(params.message), MAX_MESSAGE_CHARS)
        origin = f"MCP server {self._server}"
        single = _single_answer(form)
        if single is not None:  # one text field: asked as free text or choices
            question = Question(text=message, choices=single, origin=origin)
        else:
            question = Question(text=message, form=form, origin=origin)
        loop, ask = entry

        async def asked() -> Any:
            return await ask(question)

        answer: Any = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(asked(), loop))
        if answer is None:
            return mcp_types.ElicitResult(action="decline")
        content = {"answer": answer} if single is not None else answer
        return mcp_types.ElicitResult(action="accept", content=content)


def _single_answer(form: Any) -> tuple[str, ...] | None:
    """For a form of one required text field named ``answer`` (how a question with free text
    or choices travels over MCP): its choices (empty: free text); else None."""
    props = form.get("properties") or {}
    spec = props.get("answer")
    if len(props) != 1 or not isinstance(spec, dict) or spec.get("type") != "string":
        return None
    if form.get("required") != ["answer"]:
        return None
    enum = spec.get("enum")
    choices = tuple(enum) if isinstance(enum, list) else ()
    return choices if choices_problem(choices) is None or not choices else None
