"""Whether the model may see the notebook's variables and cells' outputs: the settings
``show_variables`` and ``show_outputs`` (``runtime/project/settings.py``; an administrator may
lock them off). Every place that hands variables or outputs to a model asks here: the notebook
tools, ``run_cells``' answer, the chat's context and mentions, and the assists' prompts."""

from __future__ import annotations

from typing import Literal

__all__ = ["HIDDEN", "may_show"]

What = Literal["variables", "outputs"]

HIDDEN: dict[What, str] = {
    "variables": "hidden: the notebook's settings do not let the model see its variables "
    "(show_variables is off)",
    "outputs": "hidden: the notebook's settings do not let the model see cells' outputs "
    "(show_outputs is off)",
}
"""What the model is told in place of what it may not see."""


def may_show(what: What) -> bool:
    """Whether the loaded extension's settings let the model see ``what`` (True outside a
    notebook, where no settings apply)."""
    from ..host import current_host

    host = current_host()
    settings = host.settings if host is not None else None
    return settings is None or settings.values.get(f"show_{what}", True) is not False
