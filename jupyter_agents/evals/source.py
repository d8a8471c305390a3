"""An evaluation as code: ``MODULE:FUNCTION``, a function (plain or async) that evaluates and
returns an :class:`EvalReport`. ``python -m jupyter_agents.evals run`` calls it and saves the
report with its source; the gate calls it again when given only that baseline. With the
evaluation's runs in a cassette (``evaluate(cassette=...)``), the call replays them: CI runs
the whole evaluation offline.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from ..runtime.errors import UserError
from .report import EvalReport

__all__ = ["run_source"]


def _function(source: str, *, here_only: bool) -> Any:
    module_name, _, attribute = source.partition(":")
    if not module_name or not attribute:
        raise UserError(f"{source!r} is not MODULE:FUNCTION (for example evals.qa:run).")
    if os.getcwd() not in sys.path:  # a module next to the caller, as `python -m` would find
        sys.path.insert(0, os.getcwd())
    if here_only:
        _check_here(source, module_name)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise UserError(f"cannot import {module_name!r}: {e}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise UserError(f"{module_name} has no function {attribute!r}.")
    return function


def _check_here(source: str, module_name: str) -> None:
    """A source read from a file must be a module under this folder: a report file cannot make
    the gate import and call any installed module's function."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        spec = None
    origin = spec.origin if spec is not None and spec.has_location else None  # not "frozen"
    here = Path.cwd().resolve()
    if not origin or not Path(origin).resolve().is_relative_to(here):
        raise UserError(
            f"the baseline names {source!r}, which is not a module under this folder; "
            "give --run MODULE:FUNCTION to run it anyway"
        )


def run_source(source: str, *, from_report: bool = False) -> EvalReport:
    """Call ``source`` (``MODULE:FUNCTION``) and return its report, which remembers it.

    Args:
        source: The function, as the person gave it or as a saved report names it.
        from_report: ``source`` was read from a report file: it must be a module under the
            current folder (a file is data; it cannot pick any installed function to run).

    Raises:
        UserError: ``source`` cannot be found (or, from a report, is not a module here),
            fails, or returns something else than a report.
    """
    function = _function(source, here_only=from_report)
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
