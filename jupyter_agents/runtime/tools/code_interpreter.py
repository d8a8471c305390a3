"""``KernelCodeInterpreter``: the registered ``code_interpreter`` tool, Python on its own
Jupyter kernel (Qwen-Agent's code interpreter), sandboxed like the shell.

The model sends ``{"code": "..."}``; the answer holds what the code printed, the value of its
last expression, its plots (as images) and, when it raised, the traceback, so the model can
fix its code. Variables and imports persist across calls, cells and agents: instances with the
same settings share one kernel. The approval policy and the sandbox come from the tool's
settings, else the run's ``RunConfig``, else the defaults (``untrusted``: every call waits for
a person, since code is never known to only read; ``workspace-write``; no network).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..kernels import ManagedKernel
from ..sandbox import SandboxPolicy
from ..sandbox.policy import ExecPolicy, check_policy_names
from .base_tool import BaseTool
from .kinds import DisplayPart
from .live_output import streamer
from .outputs import ToolOutputText
from .registry import register_tool

if TYPE_CHECKING:
    from ..context import ToolContext

__all__ = ["KernelCodeInterpreter"]

RESTART_ALLOWANCE = 90.0
"""Seconds beyond the code's timeout a call may take: interrupting, or restarting, the kernel."""


@register_tool("code_interpreter")
class KernelCodeInterpreter(BaseTool):
    """Python code on a separate Jupyter kernel (see the module docstring).

    Settings (``cfg``, or ``JUPYTER_AGENTS_CODE_INTERPRETER_<KEY>``): ``timeout`` (seconds per
    call, 60), ``workspace`` (the work folder: the run's workspace or the current folder),
    ``approval_policy``, ``sandbox_mode``, ``network_access``, ``kernel_name`` (``python3``),
    ``max_output`` (characters of text kept, 20,000).
    """

    description = (
        "Run Python code in a Jupyter kernel. Variables persist between calls. The answer has "
        "the printed output, the last expression's value, plots as images, and errors with "
        "their traceback."
    )
    parameters = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "The Python code to run."}},
        "required": ["code"],
    }
    defaults = {"timeout": 60.0, "kernel_name": "python3", "max_output": 20_000}
    reuse_instances = True

    def __init__(self, cfg: dict[str, Any] | None = None, **options: Any) -> None:
        super().__init__(cfg, **options)
        check_policy_names(
            self.setting("approval_policy"), self.setting("sandbox_mode"), "code_interpreter"
        )
        if self.cfg.get("needs_approval") is None and options.get("needs_approval") is None:
            self.needs_approval = self._policy_asks
        self._session: ManagedKernel | None = None
        # The run's own limit for this call: the code's time, then an interrupt, perhaps a
        # restart (a start may take a while): the code's timeout speaks first.
        self.timeout = float(self.setting("timeout")) + RESTART_ALLOWANCE

    # The policy reads these like a ShellTool's fields.
    @property
    def approval_policy(self) -> Any:
        return self.setting("approval_policy")

    @property
    def sandbox_mode(self) -> Any:
        return self.setting("sandbox_mode")

    @property
    def workspace(self) -> Any:
        return self.setting("workspace")

    @property
    def network_access(self) -> Any:
        return self.setting("network_access")

    allow_env: tuple[str, ...] = ()
    display_live = "terminal"  # what the code prints, as it comes; the answer repeats it

    def display_arguments(self, arguments: dict[str, Any]) -> tuple[DisplayPart, ...]:
        code = arguments.get("code")
        return (DisplayPart("code", code, "python"),) if isinstance(code, str) else ()

    def policy_for(self, run_config: Any) -> ExecPolicy:
        """The policy in a run with ``run_config``."""
        return ExecPolicy.resolve(self, run_config)

    def _policy_asks(self, ctx: Any, _arguments: dict[str, Any], _call_id: str) -> bool:
        return self.policy_for(getattr(ctx, "run_config", None)).approval == "untrusted"

    def session(self, sandbox: SandboxPolicy) -> tuple[ManagedKernel, ManagedKernel | None]:
        """The kernel for ``sandbox``, and the kernel it replaces (for another policy)."""
        current = self._session
        if current is not None and current.policy == sandbox:
            return current, None
        self._session = ManagedKernel(
            sandbox,
            kernel_name=str(self.setting("kernel_name")),
            max_output=int(self.setting("max_output")),
        )
        return self._session, current

    async def call(self, params: dict[str, Any], **kwargs: Any) -> Any:
        ctx: ToolContext[Any] | None = kwargs.get("ctx")
        policy = self.policy_for(getattr(ctx, "run_config", None))
        session, replaced = self.session(policy.sandbox)
        if replaced is not None:
            await replaced.shutdown()
        timeout = float(self.setting("timeout"))
        show = streamer(ctx.tool_call_id) if ctx is not None else None
        result = await session.run(str(params["code"]), timeout, show)
        notes = []
        if result.status == "timeout":
            notes.append(f"[interrupted: the code ran longer than {timeout:g} s]")
        if replaced is not None or result.restarted:
            notes.append(
                "[the kernel was restarted: variables and imports from earlier calls are gone]"
            )
        if result.status == "died":
            notes.append("[the kernel died while running this code]")
        output = result.output
        if not notes:
            return output or "(no output)"
        note = "\n".join(notes)
        if isinstance(output, str):
            return f"{output}\n{note}".lstrip("\n")
        return [*output, ToolOutputText(note)]

    async def shutdown(self) -> None:
        """Stop the kernel now (the next call starts a fresh one)."""
        if self._session is not None:
            await self._session.shutdown()
