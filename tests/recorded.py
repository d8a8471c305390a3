"""What a model was sent, for the tests that read it: the JSON bodies a fake server recorded
(``RecordedRequest.body`` is None when a request sent no JSON object) and the requests an
agent's scripted model received (``Agent.model`` may be a name, or no model at all)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jupyter_agents import Agent
from jupyter_agents.testing import ReceivedRequest, ScriptedModel
from jupyter_agents.testing.server import RecordedRequest

__all__ = ["json_bodies", "json_body", "scripted_requests"]


def json_body(request: RecordedRequest) -> dict[str, Any]:
    """The request's JSON body, asserted to be there: every model request sends one."""
    assert request.body is not None, f"{request.method} {request.path} sent no JSON object"
    return request.body


def json_bodies(requests: Iterable[RecordedRequest]) -> list[dict[str, Any]]:
    """The JSON bodies of ``requests``, in order, each asserted to be there."""
    return [json_body(request) for request in requests]


def scripted_requests(agent: Agent[Any]) -> list[ReceivedRequest]:
    """The requests ``agent``'s model received, asserting that it is a ``ScriptedModel``."""
    assert isinstance(agent.model, ScriptedModel), agent.model
    return agent.model.requests
