"""The runtime's logging: every logger is ``jupyter_agents`` or one of its children."""

from __future__ import annotations

import logging
import sys

__all__ = ["LOGGER_NAME", "enable_verbose_stdout_logging"]

LOGGER_NAME = "jupyter_agents"
"""The parent of every runtime logger (``jupyter_agents.tracing`` is a child)."""


def enable_verbose_stdout_logging() -> None:
    """Print every runtime log record, debug level included, to standard output.

    For a quick look while developing; configure the ``jupyter_agents`` logger with
    ``logging`` for anything lasting. Calling it again adds no second handler.
    """
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(logging.DEBUG)
    if not any(getattr(h, "_jupyter_agents_stdout", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stdout)
        handler._jupyter_agents_stdout = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
