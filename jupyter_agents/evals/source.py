"""An evaluation as code: ``MODULE:FUNCTION``, a function (plain or async) that evaluates and
returns an :class:`EvalReport`. ``python -m jupyter_agents.evals run`` calls it and saves the
report with its source; the gate calls it again when given only that baseline. With the
evaluation's runs in a cassette (``evaluate(cassette=...)``), the call replays them: CI runs
the whole evaluation offline.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from typing import Any

from ..runtime.errors import UserError
from .report import EvalReport

__all__ = ["run_source"]


def _function(source: str) -> Any:
    module_name, _, attribute = source.partition(":")
    if not module_name or not attribute:
        raise UserError(f"{source!r} is not MODULE:FUNCTION (for example evals.qa:run).")
    if os.getcwd() not in sys.path:  # a module next to the caller, as `python -m` would find
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise UserError(f"cannot import {module_name!r}: {e}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise UserError(f"{module_name} has no function {attribute!r}.")
    return function


def run_source(source: str) -> EvalReport:
    """Call ``source`` (``MODULE:FUNCTION``) and return its report, which remembers it.

    Raises:
        UserError: ``source`` cannot be found, fails, or returns something else than a report.
    """
    function = _function(source)
    try:
        report = function()
        if inspect.isawaitable(report):
            report = asyncio.run(_awaited(report))
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"{source} failed: {type(e).__name__}: {e}") from None
    if not isinstance(report, EvalReport):
        raise UserError(f"{source} returned {type(report).__name__}, not an EvalReport.")
    report.source = source
    return report


async def _awaited(value: Any) -> Any:
    return await value
