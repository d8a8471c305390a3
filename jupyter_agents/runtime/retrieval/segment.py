"""How Chinese is cut into words for the keyword index: by ``jieba`` (Qwen-Agent's segmenter, in
its search mode) when it is installed (``pip install 'jupyter-agents[retrieval]'``), else into
pairs of characters (see ``text``).

jieba is imported when the first store opens, never with the runtime, and its dictionary (a
second or two; several the first time, when its cache is built) is loaded by the first text
with Chinese in it. Its progress messages go nowhere (its own handler would write them to
stderr, which is a person's cell), and its cache lives in the person's cache folder
(``$XDG_CACHE_HOME/jupyter_agents``, else ``~/.cache/jupyter_agents``), not in the workspace
and not in ``/tmp``, where jieba would load a file anyone could have put there. The store uses
a tokenizer of its own, so a ``jieba.add_word`` in a cell cannot cut queries differently from
the index.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["PAIRS", "Segmentation", "cache_folder", "segmentation"]

logger = logging.getLogger("jupyter_agents")


@dataclass(frozen=True)
class Segmentation:
    """How runs of Chinese characters are cut, in passages and in queries alike."""

    name: str
    """Kept in the index: an index cut another way is cut again when a store opens it."""
    words: Callable[[str], list[str]] | None = None
    """A run of Han characters as words (jieba's search mode: each word, and the shorter
    words inside a long one); None cuts every run of CJK characters into pairs."""


PAIRS = Segmentation("pairs")
"""Overlapping pairs of characters, for every script: what the index does without jieba."""


@cache
def segmentation() -> Segmentation:
    """This process's segmentation: jieba's when it imports, else ``PAIRS``. Decided once
    (``segmentation.cache_clear()`` decides again)."""
    try:
        with warnings.catch_warnings():  # its pkg_resources, and invalid escapes on 3.12
            warnings.simplefilter("ignore")
            jieba = importlib.import_module("jieba")
    except ImportError as e:
        if e.name != "jieba":  # installed, but broken
            logger.warning("jieba cannot be imported (%s): Chinese is indexed in pairs", e)
        return PAIRS
    return Segmentation(f"jieba {getattr(jieba, '__version__', '?')}", _jieba_words(jieba))


def cache_folder() -> Path:
    """Where jieba's dictionary cache is kept: the person's, never the workspace's."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule; a relative one would be the workspace
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jupyter_agents"


@cache
def _jieba_words(jieba: ModuleType) -> _JiebaWords:
    """One tokenizer (and dictionary in memory, some 50 MB) per process and jieba module."""
    return _JiebaWords(jieba)


class _JiebaWords:
    """jieba's search mode on a tokenizer of our own, its dictionary loaded by the first call."""

    def __init__(self, jieba: ModuleType) -> None:
        self._jieba = jieba
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def __call__(self, run: str) -> list[str]:
        tokenizer = self._load() if self._tokenizer is None else self._tokenizer
        return list(tokenizer.cut_for_search(run))

    def _load(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                _silence(self._jieba)
                started = time.perf_counter()
                tokenizer = self._jieba.Tokenizer()
                folder = cache_folder()
                try:
                    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                except OSError as e:  # no cache then: each process builds the dictionary
                    logger.debug("jieba's cache folder %s cannot be made: %s", folder, e)
                tokenizer.tmp_dir = str(folder)
                tokenizer.initialize()
                logger.debug("jieba's dictionary loaded in %.1f s", time.perf_counter() - started)
                self._tokenizer = tokenizer
            return self._tokenizer


def _silence(jieba: ModuleType) -> None:
    """jieba logs its progress (and a cache it could not write, with a traceback) to stderr
    through a handler of its own: in a notebook, into the cell that happened to run. Its
    logger keeps a handler that drops them, so that Python's last-resort handler does not
    print them either."""
    jieba_logger = logging.getLogger(jieba.__name__)
    console = getattr(jieba, "log_console", None)
    if isinstance(console, logging.Handler):
        jieba_logger.removeHandler(console)
    if not any(isinstance(h, logging.NullHandler) for h in jieba_logger.handlers):
        jieba_logger.addHandler(logging.NullHandler())
    jieba_logger.propagate = False
    jieba_logger.setLevel(logging.WARNING)
