"""Questions from a tool served over MCP (``ToolboxServer``), put to the MCP client that made
the call: the server sends ``elicitation/create`` on that client's session (the client shows
it to its person), when the client said it can answer them. Other clients' calls ask the
served run's own approval handler, as before.

A question with free text or choices becomes a one-field form (``answer``); the client's
answer is checked against the question like any other, and anything else (declined,
cancelled, an answer that does not fit) skips it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ..approvals import ApprovalDecision, ApprovalHandler, ApprovalRequest, OnLoop, call_handler
from ..questions import Question

__all__ = ["ClientQuestions", "asking_the_client", "served_client"]


class ClientQuestions:
    """The MCP client of one served call, asked on its own session."""

    def __init__(self, ctx: Any) -> None:
        """``ctx``: the call's request context (its session and request id), on the server's
        loop."""
        self._session = ctx.session
        self._request_id = getattr(ctx, "request_id", None)
        self._loop = asyncio.get_running_loop()

    @property
    def can_answer(self) -> bool:
        """Whether the client said it answers elicitation requests."""
        capabilities = getattr(self._session, "client_capabilities", None)
        return getattr(capabilities, "elicitation", None) is not None

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """Put ``request``'s question to the client; its decision."""
        question = request.question
        assert question is not None
        schema, unwrap = _as_form(question)

        async def elicit() -> Any:
            return await self._session.elicit_form(
                message=question.text,
                requested_schema=schema,
                related_request_id=self._request_id,
            )

        result = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(elicit(), self._loop))
        if result.action != "accept" or result.content is None:
            return request.skip(f"the MCP client's person chose {result.action}")
        answer = unwrap(dict(result.content))
        problem = question.problem(answer)
        if problem is not None:
            return request.skip(f"the MCP client's answer did not fit: {problem}")
        return request.answer(answer)


def _as_form(question: Question) -> tuple[dict[str, Any], Callable[[dict[str, Any]], Any]]:
    """The form to send, and how to read the question's answer back from the client's."""
    if question.form is not None:
        return dict(question.form), lambda content: content
    field: dict[str, Any] = {"type": "string", "title": "Answer"}
    if question.choices:
        field["enum"] = list(question.choices)
    form = {"type": "object", "properties": {"answer": field}, "required": ["answer"]}
    return form, lambda content: content.get("answer")


served_client: ContextVar[ClientQuestions | None] = ContextVar("served_client", default=None)
"""The MCP client of the served call running now (set by ``ToolboxServer``)."""


def asking_the_client(handler: ApprovalHandler | None) -> ApprovalHandler | None:
    """``handler``, except that questions go to the served call's MCP client when it can
    answer them (read when the run starts)."""
    client = served_client.get()
    if client is None or not client.can_answer:
        return handler

    def ask(request: ApprovalRequest) -> Any:
        if request.question is not None:
            return client.ask(request)
        return None if handler is None else call_handler(handler, request)

    return OnLoop(ask)
