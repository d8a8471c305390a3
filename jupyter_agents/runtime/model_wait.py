"""What a run waits for while a model call has not answered: ``ModelWait``, read from
``RunResultStreaming.model_wait``, and where a model sends its requests.

A call sets its wait when it starts and takes it back when the first event (or the whole
answer) arrives, so a view can poll it without costing the run anything per event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .models.provider import ClientPool, shared_client_pool

__all__ = ["ModelWait", "endpoint_of", "server_name", "shown_url"]


@dataclass(slots=True)
class ModelWait:
    """A model call the run waits for: the request is sent and nothing has come back yet."""

    model: Any
    """The model called (its server is looked up only when someone asks ``where``)."""

    attempts: int
    """Attempts the call may take in all (the first one and its retries)."""

    since: float
    """``time.monotonic()`` when the call's first attempt started."""

    attempt: int = 1
    """The attempt under way, counting from 1."""

    def where(self) -> str | None:
        """The server as a person names it (``api.openai.com``, ``127.0.0.1:8000``), else the
        model's name; None when neither is known."""
        return server_name(self.model)


def _unwrapped(model: Any) -> Any:
    """The model a wrapper (a recording's ``ReplayModel``) calls."""
    for _ in range(5):
        inner = getattr(model, "inner", None)
        if inner is None:
            break
        model = inner
    return model


def endpoint_of(model: Any) -> str | None:
    """The URL ``model`` sends its requests to: its ``base_url`` when it has one (LiteLLM's
    models), its client's for the OpenAI models; None when it does not say."""
    model = _unwrapped(model)
    base = getattr(model, "base_url", None)
    if isinstance(base, str) and base:
        return base
    pool = getattr(model, "_pool", False)  # the OpenAI models keep their clients in a pool
    if pool is None:
        pool = shared_client_pool()  # ... or share the provider's
    return pool.base_url if isinstance(pool, ClientPool) else None


def server_name(model: Any) -> str | None:
    """Where ``model`` is, in a few characters: its server's host (and port), else its name."""
    endpoint = endpoint_of(model)
    if endpoint:
        return _host(endpoint) or endpoint
    name = getattr(_unwrapped(model), "model", None)
    return name if isinstance(name, str) and name else None


def _host(url: str) -> str:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    return f"{host}:{port}" if host and port else host


def shown_url(url: str) -> str:
    """``url`` without what a message must not show (credentials, query, fragment)."""
    parts = urlsplit(url)
    host = _host(url)
    if not host:
        return url.split("?", 1)[0]
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else host + parts.path
