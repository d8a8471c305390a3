"""Questions from a tool served over MCP (``ToolboxServer``), put to the MCP client that made
the call: the server sends ``elicitation/create`` on that client's session (the client shows
it to its person), when the client said it can answer them; for a call run as a task, through
the client's ``tasks/result`` request (``served_tasks``). Other clients' calls ask the served
run's own approval handler, as before.

A question with free text or choices becomes a one-field form (``answer``); the client's
answer is checked against the question like any other, and anything else (declined,
cancelled, an answer that does not fit) skips it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any

from ..approvals import ApprovalDecision, ApprovalHandler, ApprovalRequest, OnLoop, call_handler
from ..questions import Question

__all__ = ["ClientQuestions", "Elicit", "answers_questions", "asking_the_client", "served_client"]


Elicit = Callable[[str, dict[str, Any]], Coroutine[Any, Any, Any]]
"""``(message, form) -> ElicitResult``: sends one ``elicitation/create`` to the client (on the
server's loop)."""


class ClientQuestions:
    """The MCP client of one served call, asked through ``elicit`` (the call's own request,
    or a task's ``tasks/result`` request: ``served_tasks``)."""

    def __init__(self, can_answer: bool, elicit: Elicit) -> None:
        """Made on the server's loop."""
        self.can_answer = can_answer
        """Whether the client said it answers elicitation requests."""
        self._elicit = elicit
        self._loop = asyncio.get_running_loop()

    @classmethod
    def of_request(cls, ctx: Any) -> ClientQuestions:
        """The client of the call whose request context is ``ctx`` (its session and request
        id), asked on that request."""
        session, request_id = ctx.session, getattr(ctx, "request_id", None)

        async def elicit(message: str, form: dict[str, Any]) -> Any:
            return await session.elicit_form(
                message=message, requested_schema=form, related_request_id=request_id
            )

        return cls(answers_questions(session), elicit)

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """Put ``request``'s question to the client; its decision."""
        question = request.question
        assert question is not None
        schema, unwrap = _as_form(question)
        asked = asyncio.run_coroutine_threadsafe(self._elicit(question.text, schema), self._loop)
        result = await asyncio.wrap_future(asked)
        if result.action != "accept" or result.content is None:
            return request.skip(f"the MCP client's person chose {result.action}")
        answer = unwrap(dict(result.content))
        problem = question.problem(answer)
        if problem is not None:
            return request.skip(f"the MCP client's answer did not fit: {problem}")
        return request.answer(answer)


def answers_questions(session: Any) -> bool:
    """Whether the client of a server ``session`` said it answers elicitation requests."""
    capabilities = getattr(session, "client_capabilities", None)
    return getattr(capabilities, "elicitation", None) is not None


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
