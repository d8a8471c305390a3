"""``%load_ext jupyter_agents``: magics, the ``%%agent`` transformer, the toolbox, a banner.

Loading imports nothing heavy (no runtime machinery, widgets, pydantic, Markdown renderer or
price data): the magics here are thin wrappers that import their modules on first use, the
displays are registered by class name, and the host's parts that need the runtime are made
when first used. A fresh kernel loads the extension in well under a second (N1's
``load_ext_s``); ``tests/kernel/test_lazy_load.py`` checks what it leaves imported.
"""

from __future__ import annotations

from typing import Any

from .._version import __version__
from .cells.kernel import agent_cell_transformer, supports_live_cells
from .cells.reconnect import answer_reads_while_busy
from .host import NotebookHost, current_host, set_current_host
from .magics.resume_magic import cut_off_banner

__all__ = ["load", "unload"]

LAZY_TOOLS = {"notebook_python": "jupyter_agents.notebook.workspace.notebook_python"}
"""Registered tools of the notebook layer, by name -> the module that registers them (imported
when a run or ``%agent tools add`` first asks for the name)."""


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
    _register_magics(shell, host)
    cleanup = shell.input_transformers_cleanup
    if not any(getattr(t, "jupyter_agents", False) for t in cleanup):
        cleanup.append(agent_cell_transformer(shell))
    _register_displays(shell)
    _register_tools()
    if getattr(shell, "kernel", None) is not None:  # run_batch shows a widget in a kernel
        from ..runtime.batch.progress import set_notebook_progress
        from .workspace.cell_runner import follow_cells

        set_notebook_progress(_batch_view)
        follow_cells(shell)  # the notebook agent's run_cells
        if supports_live_cells(shell):  # a page may connect while an agent cell runs
            answer_reads_while_busy(shell.kernel)
    host.apply_settings()
    host.open_runs_channel()
    print(_banner(host, supports_live_cells(shell)))
    cut_off = cut_off_banner(host)
    if cut_off is not None:
        print(cut_off)


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


def _register_magics(shell: Any, host: NotebookHost) -> None:
    """``%agent`` (bound to ``host``) and ``%%agent``, each importing its module when used."""

    def agent(line: str) -> Any:
        from .magics.agent_magic import agent_line_magic

        return agent_line_magic(host, line)

    def agent_cell(line: str, body: str) -> Any:
        from .cells.cell import run_agent_cell_magic

        return run_agent_cell_magic(line, body)  # a background run's handle (``_``)

    agent_cell.__doc__ = "The ``%%agent`` cell magic: run an agent on the cell's prompt."
    shell.register_magic_function(agent, "line", "agent")
    shell.register_magic_function(agent_cell, "cell", "agent")


def _register_displays(shell: Any) -> None:
    """Show a streamed result as the live widget and evaluation reports and comparisons as
    the report widget, registered by class name: nothing is imported until one is shown (the
    evals package needs the optional ``pydantic-evals``)."""
    formatter = shell.display_formatter.ipython_display_formatter
    formatter.for_type_by_name(
        "jupyter_agents.runtime.result", "RunResultStreaming", _show_streaming
    )
    if getattr(shell, "kernel", None) is not None:
        for module, name in (("report", "EvalReport"), ("compare", "Comparison")):
            formatter.for_type_by_name(f"jupyter_agents.evals.{module}", name, _show_eval)


def _register_tools() -> None:
    """Make the notebook layer's registered tools known by name (``LAZY_TOOLS``)."""
    from ..runtime.tools.registry import BUILT_IN

    for name, module in LAZY_TOOLS.items():
        BUILT_IN.setdefault(name, module)


def _show_streaming(result: Any) -> None:
    from .view.display import show_streaming

    show_streaming(result)


def _show_eval(value: Any) -> bool:
    from .view.eval_view import show

    show(value)
    return True


def _batch_view(total: int, control: Any) -> Any:
    """``run_batch(progress="auto")``'s progress widget in this kernel."""
    from .view.batch_view import BatchView

    return BatchView(total, control)
