"""Credentials never reach a trace: headers, query parameters and body fields that look like
secrets are replaced, whatever ``trace_include_sensitive_data`` says."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REDACTED", "redact_model_config", "redact_secrets"]

REDACTED = "[redacted]"

_SECRET_NAME = re.compile(
    r"auth|key|token|secret|passw|cookie|session|credential|signature|bearer|private",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s+\S|^\s*(sk|rk|pk)-[A-Za-z0-9_-]{8,}", re.I)


def redact_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret-looking entries replaced, at any depth."""
    if isinstance(value, dict):
        return {
            key: REDACTED if _SECRET_NAME.search(str(key)) else redact_secrets(inner)
            for key, inner in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_secrets(inner) for inner in value]
    if isinstance(value, str) and _SECRET_VALUE.search(value):
        return REDACTED
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
