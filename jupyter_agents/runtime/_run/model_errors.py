"""The one line a failed model call ends with: which server the call waited on, how many
attempts it made, and the setting to change (a timeout) or what to check (a connection error).

The error keeps its type (an ``openai.APIConnectionError`` is still caught as one); only its
message changes.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from ..model_settings import ModelTimeout
from ..model_wait import endpoint_of, server_name, shown_url

__all__ = ["explain_failure"]

_READ_TIMEOUTS = frozenset({"ReadTimeout", "WriteTimeout", "PoolTimeout", "APITimeoutError"})
_CONNECTION = frozenset({"APIConnectionError", "ConnectError", "ConnectionError"})
_SETTING = "ModelSettings(timeout=ModelTimeout({}=...)) waits longer."


def explain_failure(error: BaseException, model: Any, attempts: int, limits: ModelTimeout) -> None:
    """Make ``error``'s message (the line a cell shows) say which server the call waited on and
    what to change, when it is a timeout or a connection error; others stay as they are."""
    chain = list(_chain(error))
    names = {cls.__name__ for e in chain for cls in type(e).__mro__}
    url = _request_url(chain) or endpoint_of(model)
    at = f"the model at {shown_url(url)}" if url else _named(model)
    tried = f" ({attempts} attempts)" if attempts > 1 else ""
    if "ModelTimeoutError" in names:
        seconds = getattr(error, "timeout_seconds", limits.first_event)
        text = (
            f"No answer from {at} within {seconds:g} s{tried}: it took the request and sent "
            f"nothing. {_SETTING.format('first_event')}"
        )
    elif "ConnectTimeout" in names:
        seconds = _limit(chain, "connect", limits.connect)
        text = (
            f"Could not connect to {at} within {seconds:g} s{tried}: is it up and reachable? "
            f"{_SETTING.format('connect')}"
        )
    elif names & _READ_TIMEOUTS:
        seconds = _limit(chain, "read", limits.read)
        text = (
            f"{at[0].upper()}{at[1:]} sent nothing for {seconds:g} s{tried} (read timeout). "
            f"{_SETTING.format('read')}"
        )
    elif names & _CONNECTION:
        text = (
            f"Could not connect to {at}: {_cause(chain, url)}{tried}. Is the server running, and "
            "is its URL right (OPENAI_BASE_URL, or the model's base_url)?"
        )
    else:
        return
    error.args = (text,)
    if isinstance(getattr(error, "message", None), str):
        error.message = text  # type: ignore[attr-defined]  # openai's and LiteLLM's errors


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _named(model: Any) -> str:
    name = server_name(model)
    return f"the model {name}" if name else "the model"


def _request(error: BaseException) -> Any:
    try:
        return getattr(error, "request", None)
    except RuntimeError:  # httpx raises when an error has no request
        return None


def _request_url(chain: list[BaseException]) -> str | None:
    """The URL of the request that failed, as the HTTP client reported it."""
    for error in chain:
        if type(error).__module__.split(".")[0] not in ("openai", "httpx", "httpx2"):
            continue
        url = getattr(_request(error), "url", None)
        if url is not None:
            return str(url)
    return None


def _limit(chain: list[BaseException], phase: str, default: float) -> float:
    """The limit the HTTP client applied to ``phase`` (httpx keeps it on the request)."""
    for error in chain:
        timeouts = getattr(_request(error), "extensions", {}).get("timeout")
        value = timeouts.get(phase) if isinstance(timeouts, dict) else None
        if isinstance(value, (int, float)):
            return float(value)
    return default


def _cause(chain: list[BaseException], url: str | None) -> str:
    """Why the connection failed, in a few words (the innermost error knows best)."""
    for error in reversed(chain):
        if isinstance(error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(error, socket.gaierror):
            host = urlsplit(url).hostname if url else None
            return f"unknown host {host}" if host else f"unknown host ({error})"
        if isinstance(error, ssl.SSLError):
            reason = getattr(error, "verify_message", None) or error.reason or str(error)
            return f"TLS failed ({reason})"
    for error in reversed(chain):
        text = str(error).strip()
        if text and text != "Connection error.":
            return text.splitlines()[0]
    return "connection failed"
