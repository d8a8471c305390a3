"""Credentials never reach a trace: headers, query parameters and body fields that look like
secrets are replaced, whatever ``trace_include_sensitive_data`` says."""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["REDACTED", "is_secret_name", "redact_model_config", "redact_secrets", "redact_text"]

REDACTED = "[redacted]"

_SECRET_WORDS = (
    "auth|authorization|key|apikey|token|secret|password|passwd|pwd|cookie|session|sessionid|"
    "credential|credentials|signature|bearer|private|privatekey"
)
_SECRET_NAME = re.compile(rf"(?:^|[^a-z0-9])(?:{_SECRET_WORDS})(?:$|[^a-z0-9])")
"""A name with one of these words in it (``api_key``, ``X-Auth-Token``, ``sessionToken``), not
a name that only contains the letters (``max_tokens``, ``keyword``)."""

_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s+[A-Za-z0-9._~+/=-]+\s*$", re.I)
"""A whole value that is an Authorization header's (``Bearer abc...``), not text that starts
with the word."""

_KEY_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)-[A-Za-z0-9_-]{20,}")
"""An API key (OpenAI's, Stripe's shape) anywhere in a text: the key alone is replaced."""


@functools.lru_cache(maxsize=4096)  # the same few names come again and again
def _secret_name(name: str) -> bool:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()  # sessionToken: two words
    return _SECRET_NAME.search(words) is not None


def is_secret_name(name: str) -> bool:
    """Whether ``name`` says its value is a secret (``api_key``, ``X-Auth-Token``,
    ``sessionToken``; not ``max_tokens`` or ``keyword``)."""
    return _secret_name(name)


_BEARER_IN_TEXT = re.compile(
    r"\b(Bearer|bearer|Basic|basic)\s+(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}"
)
"""Credentials after ``Bearer`` or ``Basic`` (16 characters or more, a digit among them: not
"basic understanding")."""


def redact_text(text: str) -> str:
    """``text`` with API keys and Authorization credentials (``Bearer …``) in it replaced."""
    if "k-" in text:
        text = _KEY_IN_TEXT.sub(REDACTED, text)
    return _BEARER_IN_TEXT.sub(lambda m: f"{m.group(1)} {REDACTED}", text)


def redact_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret-looking entries replaced, at any depth: entries whose
    name says secret, whole values that are credentials, and API keys inside text."""
    if isinstance(value, dict):
        return {
            key: REDACTED if _secret_name(str(key)) else redact_secrets(inner)
            for key, inner in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_secrets(inner) for inner in value]
    if isinstance(value, str):
        if _SECRET_VALUE.search(value):
            return REDACTED
        return _KEY_IN_TEXT.sub(REDACTED, value) if "k-" in value else value
    return value


def redact_model_config(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """Model settings for a span: every header value is hidden (headers are where credentials
    travel), and secret-looking query and body entries."""
    if config is None:
        return None
    safe = dict(config)
    headers = safe.get("extra_headers")
    if isinstance(headers, dict):
        safe["extra_headers"] = {name: REDACTED for name in headers}
    for name in ("extra_query", "extra_body", "metadata"):
        if name in safe:
            safe[name] = redact_secrets(safe[name])
    return safe
