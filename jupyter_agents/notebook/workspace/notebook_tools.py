"""The notebook agent's tools (``%agent tools add notebook``, or ``NotebookTools()`` for any
agent in a notebook): reading ones, ``list_cells``, ``read_cell``, ``list_variables``,
``inspect_variable`` and ``list_notebooks``, which never ask, the editing ones of
``notebook_edits.py`` and ``run_cells`` (``notebook_run.py``), which do, and
``create_notebook`` (asks) and ``open_notebook`` (``notebook_files.py``).

Cells come from the frontend that holds the document, over the ``jupyter_agents.document``
comm (``document_comm.py``); with none connected, the cell tools say so in one line. Variables
come from the kernel's namespace (``variables.py``).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...runtime.tools import FunctionTool, function_tool
from ...runtime.tools.outputs import ToolOutput, ToolOutputText
from .cell_outputs import cell_source, cell_version, model_outputs, outputs_summary
from .cell_runner import CellRunner
from .document_comm import DocumentChannel, NoFrontend
from .notebook_edits import editing_tools
from .notebook_files import notebook_file_tools
from .notebook_run import running_tools
from .variables import inspect_variable as describe_variable
from .variables import list_variables as variable_rows
from .visibility import HIDDEN, may_show

__all__ = ["NotebookTools"]

SOURCE_CHARS = 20_000
"""The longest source ``read_cell`` returns (a longer one keeps its head and tail)."""


def NotebookTools(
    channel: DocumentChannel | None = None,
    namespace: Callable[[], dict[str, Any]] | None = None,
    own_cell: Callable[[], str] | None = None,
) -> list[FunctionTool]:
    """The reading and editing tools. ``channel`` reaches the frontend (default: the loaded
    extension's), ``namespace`` gives the variables (default: IPython's user namespace),
    ``own_cell`` the id of the cell the agent runs in."""
    from ..host import current_host

    def document() -> DocumentChannel:
        if channel is not None:
            return channel
        host = current_host()
        if host is None or host.document is None:
            raise NoFrontend("The notebook tools need %load_ext jupyter_agents in a kernel.")
        return host.document

    def names() -> dict[str, Any]:
        if namespace is not None:
            return namespace()
        host = current_host()
        shell = getattr(host, "shell", None)
        return dict(getattr(shell, "user_ns", None) or {})

    def runner() -> CellRunner | None:
        host = current_host()
        shell = getattr(host, "shell", None)
        return CellRunner(shell) if getattr(shell, "kernel", None) is not None else None

    def workspace() -> Path:
        """Where other notebooks are listed and made: ``%agent policy --workspace``, else the
        kernel's folder (the notebook's)."""
        host = current_host()
        chosen = host.policy.workspace if host is not None else None
        return Path(chosen) if chosen else Path.cwd()

    def mine() -> str:
        if own_cell is not None:
            return own_cell()
        host = current_host()
        return host.current_cell() if host is not None else ""

    async def list_cells() -> str:
        """List the notebook's cells: id, type, execution count, the first line of the source
        and what the outputs are. Call read_cell(id) for a whole cell."""
        try:
            cells = await document().cells()
        except NoFrontend as e:
            return str(e)
        if not cells:
            return "The notebook has no cells."
        return "\n".join(_cell_line(index, cell, mine()) for index, cell in enumerate(cells))

    async def read_cell(id: str) -> str | list[ToolOutput]:
        """Read one cell: its whole source, its version (an edit must name it) and its
        outputs (text, tables as rows, images).

        Args:
            id: The cell's id, as list_cells shows it.
        """
        try:
            cells = await document().cells()
        except NoFrontend as e:
            return str(e)
        cell = next((c for c in cells if c.get("id") == id), None)
        if cell is None:
            ids = [str(c["id"]) for c in cells]
            close = difflib.get_close_matches(str(id), ids, n=3, cutoff=0.3)
            hint = f" The nearest: {', '.join(close)}." if close else ""
            return f"No cell with id {id!r}.{hint} (list_cells shows them.)"
        source = cell_source(cell)
        header = _cell_header(cell, source, mine())
        shown = source if len(source) <= SOURCE_CHARS else _head_tail(source)
        text = f"{header}\nsource:\n{shown}\n"
        outputs = cell.get("outputs")
        if not isinstance(outputs, list) or not outputs:
            return text + "outputs: none"
        if not may_show("outputs"):
            return f"{text}outputs: {HIDDEN['outputs']}"
        content = model_outputs(outputs)
        if isinstance(content, str):
            return f"{text}outputs:\n{content}"
        return [ToolOutputText(f"{text}outputs:"), *content]

    def list_variables() -> str:
        """List the variables in the notebook's namespace, one line each (name, type, shape or
        length). Call inspect_variable(name) for columns, types and a few rows."""
        if not may_show("variables"):
            return f"The variables are {HIDDEN['variables']}."
        rows = variable_rows(names())
        if not rows:
            return "The notebook defines no variables yet."
        return "\n".join(
            f"{v.name}: {v.type}" + (f", {v.summary}" if v.summary else "") for v in rows
        )

    def inspect_variable(name: str) -> str:
        """Describe one variable of the notebook: for tables, columns with types and null
        counts and the first rows; lazy values are not computed.

        Args:
            name: The variable's name.
        """
        if not may_show("variables"):
            return f"The variables are {HIDDEN['variables']}."
        return describe_variable(names(), name)

    return [
        function_tool(read_only=True)(list_cells),
        function_tool(read_only=True)(read_cell),
        function_tool(read_only=True)(list_variables),
        function_tool(read_only=True)(inspect_variable),
        *editing_tools(document, mine),
        *running_tools(document, mine, runner),
        *notebook_file_tools(document, workspace),
    ]


def _first_line(source: str) -> str:
    line = next((x.strip() for x in source.splitlines() if x.strip()), "")
    return line if len(line) <= 60 else line[:59] + "…"


def _marks(cell: dict[str, Any], own: str) -> str:
    if cell.get("id") == own or cell.get("executing") is True:
        return " · running now (the agent's own cell)" if cell.get("executing") else " · own"
    return ""


def _count(cell: dict[str, Any]) -> str:
    count = cell.get("execution_count")
    return f" [{count}]" if isinstance(count, int) and not isinstance(count, bool) else ""


def _cell_line(index: int, cell: dict[str, Any], own: str) -> str:
    kind = cell.get("cell_type") if cell.get("cell_type") in ("code", "markdown", "raw") else "?"
    outputs = cell.get("outputs")
    shown = outputs if isinstance(outputs, list) and may_show("outputs") else []
    summary = outputs_summary(shown)
    line = f"{index + 1}. {cell['id']} {kind}{_count(cell)}: {_first_line(cell_source(cell))!r}"
    return line + (f" → {summary}" if summary else "") + _marks(cell, own)


def _cell_header(cell: dict[str, Any], source: str, own: str) -> str:
    kind = cell.get("cell_type") if cell.get("cell_type") in ("code", "markdown", "raw") else "?"
    version = cell_version(source)
    return f"cell {cell['id']} ({kind}{_count(cell)}, version {version}){_marks(cell, own)}"


def _head_tail(source: str) -> str:
    half = SOURCE_CHARS // 2
    return f"{source[:half]}\n… {len(source) - SOURCE_CHARS:,} characters cut …\n{source[-half:]}"
