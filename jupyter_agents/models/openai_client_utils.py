"""The SDK's ``agents.models.openai_client_utils``, at the same path: whether a client or a
URL is OpenAI's own endpoint."""

from __future__ import annotations

from ..runtime.models.provider import is_official_openai_base_url, is_official_openai_client

__all__ = ["is_official_openai_base_url", "is_official_openai_client"]
