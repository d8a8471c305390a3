"""``%load_ext jupyter_agents``: magics, the ``%%agent`` transformer, the toolbox, a banner."""

from __future__ import annotations

import threading
from typing import Any

from .._version import __version__
from ..runtime.cost import warm_up_prices
from ..runtime.result import RunResultStreaming
from .cell import run_agent_cell_magic
from .display import show_streaming
from .host import NotebookHost, current_host, set_current_host
from .kernel import agent_cell_transformer, supports_live_cells
from .magics import agent_line_magic

__all__ = ["load", "unload"]


def _banner(host: NotebookHost, live: bool) -> str:
    if host.model is not None or host.has_credentials():
        model = f"model {host.model_label()}; change it with %agent model NAME"
    else:
        model = (
            "no model configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), "
            "or %agent model VAR with a Model such as jupyter_agents.testing.ScriptedModel"
        )
    in_kernel = getattr(host.shell, "kernel", None) is not None
    mode = (
        " · runs go to the background (needs ipykernel >= 7.4 for live runs)"
        if in_kernel and not live
        else ""
    )
    return f"jupyter_agents {__version__} · {model}{mode}"


def load(shell: Any) -> None:
    """Set up the extension in ``shell`` (idempotent)."""
    host = current_host()
    if host is None or host.shell is not shell:
        if host is not None:
            host.close()
        host = NotebookHost(shell)
        set_current_host(host)
    bound = host

    def agent(line: str) -> Any:
        return agent_line_magic(bound, line)

    shell.register_magic_function(agent, "line", "agent")
    shell.register_magic_function(run_agent_cell_magic, "cell", "agent")
    cleanup = shell.input_transformers_cleanup
    if not any(getattr(t, "jupyter_agents", False) for t in cleanup):
        cleanup.append(agent_cell_transformer(shell))
    _register_displays(shell)
    if getattr(shell, "kernel", None) is not None:  # run_batch shows a widget in a kernel
        from .batch_view import install as install_batch_view
        from .cell_runner import follow_cells
        from .eval_view import install as install_eval_view

        install_batch_view()
        install_eval_view(shell)  # reports and comparisons as the report widget
        follow_cells(shell)  # the notebook agent's run_cells
    host.open_runs_channel()
    # genai-prices takes ~0.7 s to import and price once: off the first cell's path
    threading.Thread(target=warm_up_prices, name="jupyter_agents-prices", daemon=True).start()
    print(_banner(host, supports_live_cells(shell)))


def unload(shell: Any) -> None:
    """Remove what ``load`` set up."""
    cleanup = shell.input_transformers_cleanup
    cleanup[:] = [t for t in cleanup if not getattr(t, "jupyter_agents", False)]
    host = current_host()
    if host is not None:
        host.close()
        set_current_host(None)
    from ..runtime.batch.progress import set_notebook_progress

    set_notebook_progress(None)


def _register_displays(shell: Any) -> None:
    formatter = shell.display_formatter.ipython_display_formatter
    formatter.for_type(RunResultStreaming, show_streaming)
