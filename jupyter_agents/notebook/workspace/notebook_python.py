"""``notebook_python``: the agent runs Python in the notebook's own namespace (opt-in).

``%agent tools add notebook_python`` gives the notebook agent a tool that runs code where the
user's variables live, so it can look at and build their DataFrames. Every call waits for a
person unless the tool is added with ``needs_approval=false``; the card shows the code first
(its arguments can be edited before approving), then what it printed, the value of its last
expression, and the variables it created or rebound. Printed text goes to the card, never to
another cell's output.
"""

from __future__ import annotations

import ast
import reprlib
from typing import Any

from ...runtime.tools.base_tool import BaseTool
from ...runtime.tools.kinds import DisplayPart
from ...runtime.tools.live_output import streamer
from ...runtime.tools.registry import register_tool
from ..cells import _tool_output

__all__ = ["NotebookPython"]

_REPR = reprlib.Repr()
_REPR.maxstring = 2000
_REPR.maxother = 2000


def describe_value(value: Any) -> str:
    """A short description of a variable: its type, and a shape or length when it has one."""
    kind = type(value).__name__
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return f"{kind} {'×'.join(str(n) for n in shape)}"
    try:
        return f"{kind} of {len(value)}" if not isinstance(value, (str, bytes)) else kind
    except TypeError:
        return kind


@register_tool("notebook_python")
class NotebookPython(BaseTool):
    """Python in the notebook's namespace (see the module docstring). Settings:
    ``needs_approval`` (default true), ``max_output`` (characters kept, 20,000)."""

    description = (
        "Run Python code in the user's notebook, where their variables (DataFrames, ...) are. "
        "The answer has the printed output, the last expression's value and the variables "
        "the code created or changed."
    )
    parameters = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "The Python code to run."}},
        "required": ["code"],
    }
    defaults = {"max_output": 20_000}
    display_live = "terminal"  # what the code prints, as it comes; the answer repeats it

    def __init__(self, cfg: dict[str, Any] | None = None, **options: Any) -> None:
        cfg = dict(cfg or {})
        cfg.setdefault("needs_approval", True)
        super().__init__(cfg, **options)
        self.namespace: dict[str, Any] | None = None
        """Where the code runs (default: the IPython user namespace)."""

    def display_arguments(self, arguments: dict[str, Any]) -> tuple[DisplayPart, ...]:
        code = arguments.get("code")
        return (DisplayPart("code", code, "python"),) if isinstance(code, str) else ()

    def _namespace(self) -> dict[str, Any]:
        if self.namespace is not None:
            return self.namespace
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:
            raise RuntimeError("notebook_python runs in IPython or Jupyter only.")
        return shell.user_ns  # type: ignore[no-any-return]

    async def call(self, params: dict[str, Any], **kwargs: Any) -> str:
        # Async on purpose: the code runs on the kernel's main thread, like a cell.
        ctx = kwargs.get("ctx")
        namespace = self._namespace()
        code = str(params["code"])
        try:
            tree = ast.parse(code, "<agent>", "exec")
        except SyntaxError as e:
            return f"SyntaxError: {e.msg} (line {e.lineno})"
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr):
            tree.body.pop()
        else:
            last = None
        before = {k: id(v) for k, v in namespace.items()}
        printed: list[str] = []
        show = streamer(ctx.tool_call_id) if ctx is not None else None

        def sink(text: str) -> None:
            printed.append(text)
            if show is not None:
                show(text)

        _tool_output.install()
        token = _tool_output.sink.set(sink)
        value: Any = None
        error = None
        try:
            exec(compile(tree, "<agent>", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<agent>", "eval"), namespace)
        except Exception as e:  # the model fixes its code
            error = f"{type(e).__name__}: {e}"
        finally:
            _tool_output.sink.reset(token)
        changed = [
            f"{name} ({describe_value(namespace[name])})"
            for name in namespace
            if not name.startswith("_") and before.get(name) != id(namespace[name])
        ]
        parts = ["".join(printed)] if printed else []
        if value is not None:
            parts.append(_REPR.repr(value) if not hasattr(value, "to_string") else str(value))
        if error is not None:
            parts.append(error)
        if changed:
            parts.append("New or changed variables: " + ", ".join(changed))
        text = "\n".join(p.rstrip("\n") for p in parts) or "(no output)"
        limit = int(self.setting("max_output"))
        if len(text) > limit:
            half = limit // 2
            text = f"{text[:half]}\n… {len(text) - 2 * half:,} characters cut …\n{text[-half:]}"
        return text
