"""Bounded gzip inflation: packed text from a notebook someone sent is small on disk and can
inflate to gigabytes, so it is read only up to a limit."""

from __future__ import annotations

import zlib

__all__ = ["inflate_gzip"]


def inflate_gzip(data: bytes, limit: int, what: str) -> bytes:
    """The gzip members of ``data`` inflated, stopping past ``limit`` bytes.

    Raises:
        ValueError: ``data`` inflates to more than ``limit`` bytes, or is cut short or not gzip
            (the message names ``what``).
    """
    raw = b""
    while data:
        inflate = zlib.decompressobj(wbits=31)
        try:
            raw += inflate.decompress(data, limit + 1 - len(raw))
        except zlib.error as e:
            raise ValueError(f"{what} is not gzip data ({e})") from None
        if len(raw) > limit:
            raise ValueError(f"{what} inflates to more than {limit:,} bytes")
        if not inflate.eof:
            raise ValueError(f"{what}'s data is cut short")
        data = inflate.unused_data
    return raw
