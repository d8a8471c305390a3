"""Parsing the ``%%agent`` argument line; misuse is a one-line ``UsageError``."""

from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import dataclass
from typing import Literal, cast

from IPython.core.error import UsageError

__all__ = ["CellOptions", "parse_cell_options"]

USAGE = (
    "%%agent [AGENT] [--model M] [--mode ask|plan|agent] [--max-turns N] [--new] [--out VAR] "
    "[--approve ask|auto|deny] [--background] [--live | --replay] [--replay-tools recorded] | "
    "%%agent [AGENT] --over DATAFRAME [--approve review|auto|deny] [--concurrency N] "
    "[--out VAR] [--backend local|ray [--keep-warm]] [--fresh] [--rpm N] [--tpm N] | "
    "%%agent [AGENT] --eval DATASET [--scorer VAR ...] [the --over options]"
)


Approve = Literal["ask", "auto", "deny", "review"]
"""How a cell's calls that need approval are decided."""


@dataclass(frozen=True)
class CellOptions:
    """The options of one ``%%agent`` cell."""

    agent: str | None = None
    model: str | None = None
    mode: Literal["ask", "plan", "agent"] | None = None
    """``--mode``: what this cell's run may do (None: the notebook's ``%agent mode``)."""
    max_turns: int | None = None
    new: bool = False
    out: str | None = None
    approve: Approve = "ask"
    """How calls that need approval are decided; the default comes from the
    ``JUPYTER_AGENTS_APPROVE`` environment variable (``ask`` when unset). ``review`` (a batch
    only, the word ``run_batch`` uses) is ``ask`` for a batch: its rows wait for review."""
    background: bool = False
    over: str | None = None
    """A batch: the variable holding the rows (the cell is the prompt template)."""
    eval: str | None = None
    """An evaluation: the variable holding the dataset (a ``pydantic_evals.Dataset`` or a
    DataFrame) or a dataset file's path; the cell, when not empty, is the prompt template
    (``{input}``: the case's input)."""
    scorers: tuple[str, ...] = ()
    """``--scorer VAR``: variables holding more scorers for an evaluation."""
    concurrency: int = 8
    backend: Literal["local", "ray"] = "local"
    keep_warm: bool = False
    """``--keep-warm`` (with ``--backend ray``): keep the actors for the next batch of this
    kernel (``run_batch(ray_keep_warm=True)``: released after 300 s idle)."""
    fresh: bool = False
    rpm: int | None = None
    tpm: int | None = None
    replay: Literal["live", "replay"] | None = None
    """``--live``: ask the model whatever the notebook's replay mode; ``--replay``: replay the
    cell's recording when its inputs are the same (None: the notebook's ``%agent replay``)."""
    replay_tools: Literal["recorded", "run"] = "run"
    """How a replayed run answers its tool calls: ``run`` (the default) runs them again, as
    Restart & Run All runs cells, so the variables, cells and files they made are there again
    (outputs that differ from the recording are flagged; calls that need approval are decided
    as the person did, from their own recording, or asked); ``--replay-tools recorded`` answers
    them from the recording instead. A tool's own ``@tool(replay=...)`` wins either way."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"%%agent: {message}. Usage: {USAGE}")


def _parser() -> _Parser:
    parser = _Parser(prog="%%agent", add_help=False)
    parser.add_argument("agent", nargs="?")
    parser.add_argument("--model")
    parser.add_argument("--mode", choices=["ask", "plan", "agent"], default=None)
    parser.add_argument("--max-turns", type=int, dest="max_turns")
    parser.add_argument("--new", action="store_true")
    parser.add_argument("--out")
    parser.add_argument("--approve", choices=["ask", "auto", "deny", "review"], default=None)
    parser.add_argument("--background", action="store_true")
    parser.add_argument("--over")
    parser.add_argument("--eval", dest="eval")
    parser.add_argument("--scorer", action="append", default=[])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--backend", choices=["local", "ray"], default="local")
    parser.add_argument("--keep-warm", action="store_true", dest="keep_warm")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--rpm", type=int)
    parser.add_argument("--tpm", type=int)
    parser.add_argument("--live", action="store_const", const="live", dest="replay")
    parser.add_argument("--replay", action="store_const", const="replay", dest="replay")
    parser.add_argument("--replay-tools", choices=["recorded", "run"], default=None)
    return parser


def parse_cell_options(line: str, default_approve: str = "ask") -> CellOptions:
    """Parse the text after ``%%agent``. Without ``--approve``, ``JUPYTER_AGENTS_APPROVE``
    decides, then ``default_approve`` (the JupyterLab extension's setting)."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise UsageError(f"%%agent: {e}. Usage: {USAGE}") from None
    args = _parser().parse_args(words)
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("%%agent: --max-turns must be at least 1.")
    if args.concurrency < 1:
        raise UsageError("%%agent: --concurrency must be at least 1.")
    batch = _checked_batch_flags(args)
    for name in (args.agent, args.out, args.over, *args.scorer):
        if name is not None and not name.isidentifier():
            raise UsageError(f"%%agent: {name!r} is not a valid Python name.")
    approve = _approve(args.approve, default_approve, batch)
    return CellOptions(
        agent=args.agent,
        model=args.model,
        mode=args.mode,
        max_turns=args.max_turns,
        new=args.new,
        out=args.out,
        approve=approve,
        background=args.background,
        over=args.over,
        eval=args.eval,
        scorers=tuple(args.scorer),
        concurrency=args.concurrency,
        backend=args.backend,
        keep_warm=args.keep_warm,
        fresh=args.fresh,
        rpm=args.rpm,
        tpm=args.tpm,
        replay=args.replay,
        replay_tools=args.replay_tools or "run",
    )


def _checked_batch_flags(args: argparse.Namespace) -> str | None:
    """The batch flag given (``--over`` or ``--eval``, None for one run), once every flag
    goes with it: a batch's flags need a batch, one run's flags need none."""
    batch = "--over" if args.over is not None else "--eval" if args.eval is not None else None
    if args.over is not None and args.eval is not None:
        raise UsageError("%%agent: --over and --eval do not go together (choose one).")
    if args.scorer and args.eval is None:
        raise UsageError("%%agent: --scorer goes with --eval DATASET.")
    if args.replay is not None and batch:
        raise UsageError(f"%%agent: --{args.replay} does not go with {batch} (a batch).")
    if args.replay_tools is not None and batch:
        raise UsageError(f"%%agent: --replay-tools does not go with {batch} (a batch).")
    if args.keep_warm and args.backend != "ray":
        raise UsageError("%%agent: --keep-warm goes with --backend ray.")
    batch_only = [f"--{n}" for n in ("backend", "fresh", "rpm", "tpm") if _given(args, n)]
    if batch is None and (batch_only or args.concurrency != 8):
        raise UsageError(
            f"%%agent: {(batch_only or ['--concurrency'])[0]} goes with --over DATAFRAME."
        )
    if batch is None and args.approve == "review":
        raise UsageError(
            "%%agent: --approve review goes with --over DATAFRAME (one run asks: --approve ask)."
        )
    if batch and args.background:
        raise UsageError(
            f"%%agent: --background does not go with {batch} (a batch shows progress)."
        )
    return batch


def _approve(given: str | None, default_approve: str, batch: str | None) -> Approve:
    """How the cell's calls that need approval are decided: ``--approve``, else
    ``JUPYTER_AGENTS_APPROVE``, else ``default_approve`` (the environment's ``review`` is
    ``ask`` for one run)."""
    approve = given or os.environ.get("JUPYTER_AGENTS_APPROVE") or default_approve
    if approve not in ("ask", "auto", "deny", "review"):
        raise UsageError(
            f"JUPYTER_AGENTS_APPROVE={approve!r} is not valid: use ask, auto, deny or review."
        )
    if approve == "review" and batch is None:  # the environment's choice, for batches
        approve = "ask"
    return cast(Approve, approve)


def _given(args: argparse.Namespace, name: str) -> bool:
    value = getattr(args, name)
    return value not in (None, False, "local")
