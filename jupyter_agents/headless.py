"""Run a notebook without a browser and say what happened: ``python -m jupyter_agents.headless``.

Executes the notebook in a fresh kernel (nbclient), prints one readable block per cell that
produced something (each agent run's summary line and answer, printed text, errors), and
writes the executed notebook next to the original (``NAME.out.ipynb``) so the runs can be
opened later. It holds the notebook document while it runs, so the notebook agent's reading
tools (``%agent tools add notebook``) read and change its cells there. Approvals follow
``JUPYTER_AGENTS_APPROVE`` (``auto``, ``deny``; default: calls that need a person are refused
after a short grace period, since nobody can click); questions (``ask_user``, an MCP server's)
are skipped after the same grace period, or at once with ``JUPYTER_AGENTS_ASK=skip``.

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
from pathlib import Path
from typing import Any

from ._headless_document import HeadlessDocument

__all__ = ["main", "summarize"]

_TAGS = re.compile(r"<[^>]+>")
_BREAKS = re.compile(r"</(?:p|li|h[1-6]|pre|blockquote|tr|summary|div)>|<br\s*/?>", re.I)


def _plain(markup: str) -> str:
    """Readable text of sanitised HTML: one line per paragraph or list item."""
    text = markup.replace("&#10;", "\n")
    text = re.sub(r"<li[^>]*>", "- ", _BREAKS.sub("\n", text), flags=re.I)
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", html.unescape(_TAGS.sub("", text)))
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def summarize(cell: Any) -> list[str]:
    """Readable lines for one executed cell's outputs."""
    lines: list[str] = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            lines.extend(str(output.get("text", "")).rstrip("\n").splitlines())
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


def main(argv: list[str] | None = None) -> int:
    """Execute a notebook, print what each cell showed, write the executed copy."""
    parser = argparse.ArgumentParser(
        prog="python -m jupyter_agents.headless",
        description="Run a notebook without a browser and print what each cell showed.",
    )
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--timeout", type=float, default=120, help="seconds per cell")
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
        asyncio.run(document.execute())
    out = path.with_suffix(".out.ipynb")
    nbformat.write(nb, out)  # type: ignore[no-untyped-call]
    failed = _report(nb, out)
    print(f"\nThe executed notebook is {out}: open it with `jupyter lab {out}`.")
    return 1 if failed else 0


def _ipc_kernel(config: Any, folder: Path) -> Any:
    """``config`` (a traitlets ``Config``) set for a kernel reached over IPC: its connection
    file and sockets in ``folder``, which only this user can enter (``mkdtemp``'s mode)."""
    config.KernelManager.transport = "ipc"
    config.KernelManager.connection_file = str(folder / "kernel.json")
    return config


def _report(nb: Any, out: Path) -> bool:
    """Print one block per code cell that showed something; whether any cell failed."""
    failed = False
    for number, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "code":
            continue
        lines = summarize(cell)
        if not lines:
            continue
        failed = failed or any(o.get("output_type") == "error" for o in cell.get("outputs", []))
        first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        print(f"\n[{number}] {first[:70]}")
        for line in lines[:40]:
            print(textwrap.indent(line[:300], "    "))
        if len(lines) > 40:
            print(f"    … {len(lines) - 40} more lines in {out.name}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
