"""Run a notebook without a browser and say what happened: ``python -m jupyter_agents.headless``.

Executes the notebook in a fresh kernel (nbclient), prints one readable block per cell that
produced something (each agent run's summary line and answer, printed text, errors), ends with
a summary of the cells that failed (the first one's error and what to do about it), and writes
the executed notebook next to the original (``NAME.out.ipynb``) so the runs can be opened
later. It holds the notebook document while it runs, so the notebook agent's reading tools
(``%agent tools add notebook``) read and change its cells there. Approvals and questions follow
the environment (see ``ENVIRONMENT``, also shown by ``--help``).

The kernel is reached over IPC (Unix sockets in a private temporary folder), not TCP: nothing
listens on a port, and ipykernel has no unencrypted connection to warn about.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .notebook.workspace.headless_document import HeadlessDocument

__all__ = ["ENVIRONMENT", "CellFailure", "advice", "main", "summarize"]

ENVIRONMENT = """\
environment:
  JUPYTER_AGENTS_APPROVE=auto|deny|ask
      How tool calls that need approval are decided: auto approves them, deny refuses them.
      Default ask: nobody can click here, so such a call is refused after the grace period.
  JUPYTER_AGENTS_ASK=skip
      Skip the model's questions (ask_user, an MCP server's) at once. Default: a question is
      skipped after the grace period, since nobody can answer it here.
  JUPYTER_AGENTS_APPROVAL_GRACE=SECONDS
      How long a call or question waits for a frontend before it is refused or skipped
      (default 5).
  OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_DEFAULT_MODEL, JUPYTER_AGENTS_OPENAI_API
      The model of the %%agent cells that name none (docs/models.md).

A %%agent cell that holds a recording of its run, with the same inputs, replays it: no model
call, no key needed (%agent replay off in the notebook, or %%agent --live on the cell, asks
the model instead; docs/replay.md).

exit status: 0 when every cell ran, 1 when a cell failed, 2 when nothing could run.

example:
  JUPYTER_AGENTS_APPROVE=auto python -m jupyter_agents.headless notebooks/quickstart.ipynb
"""
"""The environment variables a headless run reads (the end of ``--help``)."""

_TAGS = re.compile(r"<[^>]+>")
_BREAKS = re.compile(r"</(?:p|li|h[1-6]|pre|blockquote|tr|summary|div)>|<br\s*/?>", re.I)
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")

PIP_NAMES = {
    "PIL": "pillow",
    "bs4": "beautifulsoup4",
    "cv2": "opencv-python",
    "docx": "python-docx",
    "sklearn": "scikit-learn",
    "yaml": "pyyaml",
}
"""Modules whose package on PyPI has another name."""


@dataclass(frozen=True)
class CellFailure:
    """A code cell whose execution ended in an error."""

    number: int
    """The cell's position in the notebook (1-based, all cells counted)."""
    source: str
    """The cell's first line."""
    ename: str
    """The error's class name (``ModuleNotFoundError``, ``UsageError``...)."""
    evalue: str
    """The error's message."""


def _plain(markup: str) -> str:
    """Readable text of sanitised HTML: one line per paragraph or list item."""
    text = markup.replace("&#10;", "\n")
    text = re.sub(r"<li[^>]*>", "- ", _BREAKS.sub("\n", text), flags=re.I)
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", html.unescape(_TAGS.sub("", text)))
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def summarize(cell: Any) -> list[str]:
    """Readable lines for one executed cell's outputs (a stream written in pieces, such as a
    streamed answer printed chunk by chunk, reads as the text it makes)."""
    lines: list[str] = []
    stream: tuple[str, str] | None = None  # (name, text) of the stream being joined
    for output in [*cell.get("outputs", []), {}]:
        kind = output.get("output_type")
        if stream is not None and (kind != "stream" or output.get("name") != stream[0]):
            lines.extend(stream[1].rstrip("\n").splitlines())
            stream = None
        if kind == "stream":
            name, text = str(output.get("name")), str(output.get("text", ""))
            stream = (name, stream[1] + text if stream else text)
        elif kind == "error":
            lines.append(f"{output.get('ename')}: {output.get('evalue')}")
        elif kind in ("display_data", "execute_result"):
            data = output.get("data", {})
            plain = str(data.get("text/plain", ""))
            markdown = str(data.get("text/markdown", ""))
            if plain.startswith("Agent run "):
                lines.append(plain)
                lines.extend(x for x in _plain(markdown).splitlines() if x != plain)
            elif plain.startswith("<IPython.core.display") and markdown:
                lines.extend(_plain(markdown).splitlines())
            elif plain:
                lines.extend(plain.splitlines())
    return lines


def advice(failure: CellFailure) -> str:
    """What to do about a failed cell, in a few words."""
    missing = _NO_MODULE.search(failure.evalue)
    if failure.ename in ("ModuleNotFoundError", "ImportError") and missing:
        module = missing.group(1).split(".")[0]
        return f"pip install {PIP_NAMES.get(module, module)}, then run the notebook again."
    if failure.ename == "NameError":
        return "define the name in a cell before it (or correct its spelling)."
    if failure.ename == "UsageError":
        return "correct the magic's words in the cell: the message says what it takes."
    if failure.ename == "AgentRunError":
        return "the run's error says why; its card in the executed notebook has the details."
    return "read the traceback in the executed notebook, correct the cell, and run it again."


def main(argv: list[str] | None = None) -> int:
    """Execute a notebook, print what each cell showed, write the executed copy."""
    parser = argparse.ArgumentParser(
        prog="python -m jupyter_agents.headless",
        description="Run a notebook without a browser and print what each cell showed; the "
        "executed notebook is written next to it (NAME.out.ipynb).",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebook", type=Path, help="the .ipynb file to run")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per cell (120)")
    args = parser.parse_args(argv)
    try:
        import nbclient
        import nbformat
        from traitlets.config import Config
    except ImportError:
        print('Install the notebook extra first: pip install "jupyter_agents[lab]"')
        return 2
    path: Path = args.notebook
    if not path.is_file():
        print(f"No notebook at {path}.")
        return 2
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    print(f"Running {path} …", flush=True)
    with tempfile.TemporaryDirectory(prefix="jupyter-agents-") as private:
        client = nbclient.NotebookClient(
            nb,
            timeout=args.timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent.resolve())}},
            allow_errors=True,
            config=_ipc_kernel(Config(), Path(private)),
        )
        document = HeadlessDocument(client, str(path))  # the notebook tools' document
        replies = _keep_errors(client)
        asyncio.run(document.execute())
    out = path.with_suffix(".out.ipynb")
    nbformat.write(nb, out)  # type: ignore[no-untyped-call]
    failures = _report(nb, out, replies)
    print(f"\nThe executed notebook is {out}: open it with `jupyter lab {out}`.")
    if failures:
        print(_failure_summary(failures, out))
    return 1 if failures else 0


def _ipc_kernel(config: Any, folder: Path) -> Any:
    """``config`` (a traitlets ``Config``) set for a kernel reached over IPC: its connection
    file and sockets in ``folder``, which only this user can enter (``mkdtemp``'s mode)."""
    config.KernelManager.transport = "ipc"
    config.KernelManager.connection_file = str(folder / "kernel.json")
    return config


def _keep_errors(client: Any) -> dict[int, dict[str, Any]]:
    """The content of each failed cell's execute reply, by ``id()`` of the cell, kept as the
    cells end: an error a cell only prints (a magic's ``UsageError``) fails the cell too."""
    failed: dict[int, dict[str, Any]] = {}
    ended = client.on_cell_executed

    def executed(cell: Any, cell_index: int, execute_reply: Any = None) -> Any:
        content = (execute_reply or {}).get("content") or {}
        if content.get("status") == "error":
            failed[id(cell)] = content
        return ended(cell=cell, cell_index=cell_index, execute_reply=execute_reply)

    client.on_cell_executed = executed
    return failed


def _report(nb: Any, out: Path, replies: dict[int, dict[str, Any]]) -> list[CellFailure]:
    """Print one block per code cell that showed something; the cells that failed."""
    failures: list[CellFailure] = []
    for number, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "code":
            continue
        first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        reply = error or replies.get(id(cell))
        if reply is not None:
            ename, evalue = str(reply.get("ename", "Error")), str(reply.get("evalue", ""))
            if ename == "AgentRunError":  # the cell's line points at the run, which says why
                evalue = _why_the_run_failed(cell) or evalue
            failures.append(CellFailure(number, first, ename, evalue))
        lines = summarize(cell)
        if not lines:
            continue
        print(f"\n[{number}] {first[:70]}")
        for line in lines[:40]:
            print(textwrap.indent(line[:300], "    "))
        if len(lines) > 40:
            print(f"    … {len(lines) - 40} more lines in {out.name}")
    return failures


def _why_the_run_failed(cell: Any) -> str | None:
    """The error a failed agent run's summary line ends with (``... · failed · 0.3 s: WHY``)."""
    for output in cell.get("outputs", []):
        plain = str(output.get("data", {}).get("text/plain", ""))
        if plain.startswith("Agent run ") and " · failed" in plain:
            return plain.split(" · failed", 1)[1].partition(": ")[2] or None
    return None


def _failure_summary(failures: list[CellFailure], out: Path) -> str:
    """The closing lines of a run with failed cells: the first (often the cause of the others),
    its error and what to do, then the others."""
    first, later = failures[0], failures[1:]
    count = f"{len(failures)} cell{'s' if len(failures) != 1 else ''} failed"
    evalue = first.evalue if len(first.evalue) <= 300 else first.evalue[:299] + "…"
    lines = [
        f"\n{count}. The first: cell [{first.number}] ({first.source[:60]})",
        f"    {first.ename}: {evalue}",
        f"    What to do: {advice(first)}",
    ]
    if later:
        named = ", ".join(f"[{f.number}] {f.ename}" for f in later[:8])
        more = f" and {len(later) - 8} more" if len(later) > 8 else ""
        lines.append(f"Also failed: {named}{more}. Fix the first one first: they may follow it.")
    lines.append(f"Each cell's traceback is in {out}.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
