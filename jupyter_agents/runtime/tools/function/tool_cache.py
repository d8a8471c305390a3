"""``ToolCache``: remembered results of deterministic tools, by their canonical arguments."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import UserError

__all__ = ["CacheHit", "ToolCache"]

_MISSING = object()


@dataclass(frozen=True)
class CacheHit:
    """A result served from the cache: its value and how old it was, in seconds."""

    value: Any
    age: float


@dataclass
class ToolCache:
    """A least-recently-used cache of one tool's results, opt-in for tools whose result depends
    only on their arguments (``BaseTool(cache=ToolCache(ttl=600, max_size=256))``).

    Keys are the tool name and the arguments as canonical JSON (sorted keys), so ``{"a": 1,
    "b": 2}`` and ``{"b": 2, "a": 1}`` are the same call. Errors are never cached.
    """

    ttl: float | None = 600.0
    """Seconds a result stays valid (None: until it is pushed out)."""

    max_size: int = 256
    """Results kept at most; the least recently used goes first."""

    clock: Callable[[], float] = time.monotonic
    """Where time comes from (tests pass their own)."""

    hits: int = 0
    misses: int = 0
    _entries: OrderedDict[str, tuple[float, Any]] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.max_size < 1:
            raise UserError("ToolCache(max_size=...) must be at least 1.")
        if self.ttl is not None and self.ttl <= 0:
            raise UserError("ToolCache(ttl=...) must be positive, or None for no expiry.")

    @staticmethod
    def key(tool_name: str, arguments: Any) -> str:
        """The cache key of a call: the tool's name and its arguments as canonical JSON."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                pass  # not JSON: the text itself is the key
        canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
        return f"{tool_name}\x00{canonical}"

    def get(self, key: str) -> CacheHit | None:
        """The cached result for ``key`` (made fresh), or None."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or (self.ttl is not None and now - entry[0] > self.ttl):
                if entry is not None:
                    del self._entries[key]
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return CacheHit(entry[1], now - entry[0])

    def put(self, key: str, value: Any) -> None:
        """Remember ``value`` for ``key``."""
        with self._lock:
            self._entries[key] = (self.clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
