"""The JSON bodies of the requests a fake server recorded (``RecordedRequest.body`` is None when
a request sent no JSON object), for the tests that read what a model was sent."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jupyter_agents.testing.server import RecordedRequest

__all__ = ["bodies", "body"]


def body(request: RecordedRequest) -> dict[str, Any]:
    """The request's JSON body, asserted to be there: every model request sends one."""
    assert request.body is not None, f"{request.method} {request.path} sent no JSON object"
    return request.body


def bodies(requests: Iterable[RecordedRequest]) -> list[dict[str, Any]]:
    """The JSON bodies of ``requests``, in order, each asserted to be there."""
    return [body(request) for request in requests]
