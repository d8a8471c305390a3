"""Embeddings for a document store: from the user's function or the OpenAI embeddings API, and
what happens when they fail.

A failure (connection refused, a timeout, a 5xx, a broken ``embed`` function) never fails an
indexing pass or a search: the store falls back to keyword search and says so, and does not
try again for ``retry_seconds`` (so that every search does not wait for a dead service).
"""

from __future__ import annotations

import inspect
import logging
import math
import os
import struct
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias, Union

from ..errors import UserError

__all__ = ["Embedder", "Embeddings", "cosine", "pack", "unpack"]

logger = logging.getLogger("jupyter_agents")

Embedder: TypeAlias = Callable[
    [list[str]], Union[Sequence[Sequence[float]], Awaitable[Sequence[Sequence[float]]]]
]
BATCH = 64
"""Texts embedded per request."""


class Embeddings:
    """Where a store's vectors come from (see the module docstring)."""

    def __init__(
        self,
        embed: Embedder | None,
        client: Any,
        model: str,
        timeout: float,
        retry_seconds: float,
    ) -> None:
        self.embed, self.client, self.model = embed, client, model
        self.timeout, self.retry_seconds = timeout, retry_seconds
        self._pool: Any = None
        self.requests = 0
        """Calls made to the embedder (each embeds a batch)."""
        self.error: str | None = None
        """Why the last attempt failed; None after a success."""
        self._failed_at = -math.inf

    def embedder(self) -> Embedder | None:
        """The function that embeds, or None (keyword search only)."""
        if self.embed is not None:
            return self.embed
        from ..models.provider import ClientPool, shared_client_pool

        if self.client is not None:
            if self._pool is None:  # one client per event loop, like the models' clients
                self._pool = ClientPool(self.client)
            pool = self._pool
        elif os.environ.get("OPENAI_API_KEY"):
            pool = shared_client_pool()
        else:
            return None

        async def by_api(texts: list[str]) -> list[list[float]]:
            answer = await pool.get().embeddings.create(
                model=self.model, input=texts, timeout=self.timeout
            )
            return [list(item.embedding) for item in sorted(answer.data, key=lambda d: d.index)]

        return by_api

    @property
    def resting(self) -> bool:
        """A recent failure: do not try again yet."""
        return time.monotonic() - self._failed_at < self.retry_seconds

    async def vectors(self, texts: list[str]) -> list[bytes]:
        """``texts`` embedded, packed; raises what the embedder raises."""
        embedder = self.embedder()
        assert embedder is not None
        vectors: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            part = texts[start : start + BATCH]
            result = embedder(part)
            if inspect.isawaitable(result):
                result = await result
            self.requests += 1
            if len(result) != len(part):
                raise UserError(f"The embedder gave {len(result)} vectors for {len(part)} texts.")
            vectors += [pack(v) for v in result]
        return vectors

    async def attempt(self, texts: list[str]) -> list[bytes] | None:
        """``texts`` embedded, or None when the embedder failed now or a short while ago
        (``error`` says why)."""
        if self.resting:
            return None
        try:
            vectors = await self.vectors(texts)
        except Exception as e:  # whatever the service or the user's function raised
            self.failed(e)
            return None
        self.error = None
        return vectors

    def failed(self, error: Exception) -> None:
        """Note a failure: searches use keywords for the next ``retry_seconds``."""
        self.error = f"{type(error).__name__}: {error}"[:300]
        self._failed_at = time.monotonic()
        logger.warning("embeddings unavailable, using keyword search: %s", self.error)


def pack(vector: Sequence[float]) -> bytes:
    """A vector as little-endian float32 bytes."""
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack(blob: bytes) -> list[float]:
    """The vector ``pack`` made."""
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine similarity of two vectors (0 when their sizes differ)."""
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
