"""The local server's ``POST /v1/embeddings``: deterministic vectors, so retrieval can be tested.

Each input's vector is a hashed bag of its words (lower-cased), L2-normalised: texts that share
words point the same way. Vectors come as floats or, as the ``openai`` client asks by default,
as base64 of little-endian float32.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct
from typing import Any

__all__ = ["DIMENSIONS", "embed_text", "embeddings_reply"]

DIMENSIONS = 64
_WORD = re.compile(r"\w+")


def embed_text(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The server's vector for ``text``."""
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha1(word.encode()).digest()
        vector[digest[0] % dimensions] += 1.0 if digest[1] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        return [1.0] + [0.0] * (dimensions - 1)
    return [v / norm for v in vector]


def embeddings_reply(body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
    """The status and body answering an embeddings request."""
    texts = body.get("input") if body else None
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        error = {
            "message": "FakeOpenAIServer: 'input' must be a string or a list of strings.",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
        return 400, {"error": error}
    as_base64 = body is not None and body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        vector = embed_text(text)
        encoded: Any = (
            base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
            if as_base64
            else vector
        )
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    tokens = sum(len(_WORD.findall(t)) for t in texts)
    model = body.get("model", "text-embedding-3-small") if body else "text-embedding-3-small"
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return 200, {"object": "list", "data": data, "model": model, "usage": usage}
