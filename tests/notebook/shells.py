"""An IPython shell with the extension loaded, for the in-process tests (no kernel)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from IPython.core.interactiveshell import InteractiveShell


def loaded_shell() -> Iterator[Any]:
    """Yield the shell with ``%load_ext jupyter_agents`` run; unload and clear it after (use
    it as a fixture's body: ``yield from loaded_shell()``)."""
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    yield ip
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)
    ip.user_ns.clear()
    InteractiveShell.clear_instance()
