"""Credentials never reach a trace, a recording or a model through the variable tools: headers,
query parameters and body fields that look like secrets are replaced, whatever
``trace_include_sensitive_data`` says, and so are well-known key shapes (OpenAI, Stripe, GitHub,
AWS, Slack, Hugging Face, Google), private keys and the password of a URL, anywhere in a text."""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = [
    "REDACTED",
    "is_secret_name",
    "redact_assignments",
    "redact_model_config",
    "redact_secrets",
    "redact_text",
]

REDACTED = "[redacted]"

_SECRET_WORDS = (
    "auth|authorization|key|apikey|token|secret|password|passwd|pwd|cookie|session|sessionid|"
    "credential|credentials|signature|bearer|private|privatekey|passphrase"
)
_SECRET_NAME = re.compile(rf"(?:^|[^a-z0-9])(?:{_SECRET_WORDS})(?:$|[^a-z0-9])")
"""A name with one of these words in it (``api_key``, ``X-Auth-Token``, ``sessionToken``), not
a name that only contains the letters (``max_tokens``, ``keyword``)."""

_GLUED_NAME = re.compile(
    r"(?:(?:password|passwd|passphrase|secret)s?|token|apikeys?)(?:$|[^a-z0-9])"
    r"|(?:^|[^a-z0-9])(?:api|secret|private|access)[^a-z0-9]?keys(?:$|[^a-z0-9])"
)
"""A word that ends in a secret word (``PGPASSWORD``, ``csrftoken``) or a plural of one
(``secrets``, ``api_keys``); not ``tokens`` (a tokenizer's), ``secretary`` or ``keyword``."""

_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s+[A-Za-z0-9._~+/=-]+\s*$", re.I)
"""A whole value that is an Authorization header's (``Bearer abc...``), not text that starts
with the word."""

_OPENAI_KEY = re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)-[A-Za-z0-9_-]{20,}")  # Anthropic's too
"""OpenAI's key shape (and Anthropic's, Stripe's old one), as traces have always matched it."""

_STRIPE_KEY = re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")
_GITHUB_TOKEN = re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}")
_SLACK_TOKEN = re.compile(r"xox[abposr]-[A-Za-z0-9-]{10,}")
_HUGGING_FACE_TOKEN = re.compile(r"hf_[A-Za-z0-9]{30,}")
_AWS_OR_GOOGLE_KEY = re.compile(r"A(?:KIA|SIA)[A-Z0-9]{16}|AIza[A-Za-z0-9_-]{35}")
"""More API keys of well-known shapes, found anywhere in a text: the key alone is replaced.
Each is searched for only in a text that holds its first letters (most texts hold none), and
starts with letters, not a look-behind, so that the search skips ahead (a look-behind made it
ten times slower): that the key starts a word is checked by ``_key``."""

_ALPHANUMERIC = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

_PRIVATE_KEY = re.compile(
    r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)[\s\S]*?"
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
)
"""A PEM or PGP private key, up to its END line or, cut short, to the end of the text."""

_USER_INFO = re.compile(r"([^\s:/?#@'\"]{0,256}):[^\s/?#'\"]{1,256}@")
"""A URL's user info with a password (``user:pw@``), matched right after a ``://``."""

_BEARER_IN_TEXT = re.compile(
    r"\b(Bearer|bearer|Basic|basic)\s+(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}"
)
"""Credentials after ``Bearer`` or ``Basic`` (16 characters or more, a digit among them: not
"basic understanding")."""

_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_.-]{0,63})(['\"]?[ \t]*[=:][ \t]*)"
    r"(?:(['\"])[^'\"\n]*|[^\s'\",;)}\]]+)"
)
"""``NAME=value``, ``name: value``, ``"name": "value"`` or ``name='value'``: a line of a
``.env`` or YAML file, a JSON entry, an argument in a repr."""


@functools.lru_cache(maxsize=4096)  # the same few names come again and again
def _secret_name(name: str) -> bool:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()  # sessionToken: two words
    return _SECRET_NAME.search(words) is not None or _GLUED_NAME.search(words) is not None


def is_secret_name(name: str) -> bool:
    """Whether ``name`` says its value is a secret (``api_key``, ``X-Auth-Token``,
    ``sessionToken``, ``PGPASSWORD``, ``api_keys``; not ``max_tokens``, ``tokens`` or
    ``keyword``)."""
    return _secret_name(name)


def _key(match: re.Match[str]) -> str:
    """A key's replacement, unless the match starts inside a word (``task-…`` is no key)."""
    start = match.start()
    return match.group() if start and match.string[start - 1] in _ALPHANUMERIC else REDACTED


def _redact_url_passwords(text: str) -> str:
    """``text`` with the password of every URL's user info replaced (the URL is kept)."""
    pieces, done = [], 0
    at = text.find("://")
    while at != -1:
        user = _USER_INFO.match(text, at + 3)
        if user is not None:
            pieces += [text[done : at + 3], user.group(1), ":", REDACTED, "@"]
            done = user.end()
        at = text.find("://", max(at + 3, done))
    return "".join(pieces) + text[done:] if pieces else text


def _redact_keys(text: str) -> str:
    """``text`` with keys of a well-known shape, private keys and URL passwords replaced."""
    if "-" in text or "_" in text:  # every shape but AWS's and Google's has one
        if "k-" in text:
            text = _OPENAI_KEY.sub(REDACTED, text)
        if "k_live_" in text or "k_test_" in text:
            text = _STRIPE_KEY.sub(_key, text)
        if "gh" in text or "github_pat_" in text:
            text = _GITHUB_TOKEN.sub(_key, text)
        if "xox" in text:
            text = _SLACK_TOKEN.sub(_key, text)
        if "hf_" in text:
            text = _HUGGING_FACE_TOKEN.sub(_key, text)
        if "PRIVATE KEY" in text:
            text = _PRIVATE_KEY.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    if "A" in text:
        text = _AWS_OR_GOOGLE_KEY.sub(_key, text)
    if "@" in text and "://" in text:
        text = _redact_url_passwords(text)
    return text


def redact_text(text: str) -> str:
    """``text`` with API keys of well-known shapes, private keys, URL passwords and
    Authorization credentials (``Bearer …``) in it replaced."""
    return _BEARER_IN_TEXT.sub(lambda m: f"{m.group(1)} {REDACTED}", _redact_keys(text))


def redact_assignments(text: str) -> str:
    """``text`` with the values given to secret names replaced (``PGPASSWORD=…``,
    ``password: …``, ``"api_key": "…"``, ``Conn(token='…')``). Free text only: it would take
    ``key: int`` in a description for one."""

    def replace(m: re.Match[str]) -> str:
        if not _secret_name(m.group(1)):
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}"

    return _ASSIGNMENT.sub(replace, text) if ("=" in text or ":" in text) else text


_REASONING_TYPES = frozenset({"thinking", "redacted_thinking", "reasoning"})
"""Items and blocks of a model's reasoning: what they carry goes back to the provider as it
came (Anthropic answers 400 to a thinking block whose signature changed)."""

_OPAQUE = frozenset({"signature", "data", "encrypted_content"})
"""Fields of reasoning items and blocks kept verbatim: a provider's opaque proof of its own
reasoning, not a credential (base64 that happens to start like a key is left alone too)."""

_OPAQUE_ANYWHERE = frozenset({"encrypted_content", "thought_signature"})
"""Fields that are a provider's opaque reasoning wherever they are."""


def redact_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret-looking entries replaced, at any depth: entries whose
    name says secret, whole values that are credentials, and keys inside text. A model's
    reasoning payloads (a thinking block's ``signature``, ``encrypted_content``) are kept as
    they are: they are no secret, and a changed one makes the provider refuse the next
    request."""
    if isinstance(value, dict):
        kind = value.get("type")  # a JSON schema's "type" may be a list
        opaque = _OPAQUE if isinstance(kind, str) and kind in _REASONING_TYPES else frozenset()
        return {
            key: inner
            if key in opaque or key in _OPAQUE_ANYWHERE
            else REDACTED
            if _secret_name(str(key))
            else redact_secrets(inner)
            for key, inner in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_secrets(inner) for inner in value]
    if isinstance(value, str):
        if _SECRET_VALUE.search(value):
            return REDACTED
        return _redact_keys(value)
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
