"""``ApplyPatchTool``: the model edits files with patches (the Responses ``apply_patch`` tool).

On the Responses API each ``apply_patch_call`` carries one operation (create, update or delete
one file, in the SDK's V4A diff form); Chat Completions models get a function tool
``apply_patch`` taking a whole patch in Codex's grammar (several files, see ``_patch_format``).
With no editor, a ``WorkspaceEditor`` of the run's workspace applies the operations, all
or none. Whether a call asks first follows the run's approval policy and sandbox mode, as
Codex decides (``_patch_policy``); the card shows the diff of each file and the verdict.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from ..._util import call_maybe_async
from ...approvals import approved_call
from ...errors import PatchError, UserError
from ...sandbox import SandboxMode
from ...sandbox.policy import ApprovalPolicy, ExecPolicy, check_policy_names
from ..capabilities import ToolCapabilities
from ..kinds import DisplayPart, ParsedCall, ToolDisplay, ToolKind, json_object, register_tool_kind
from ._patch_apply import apply_diff
from ._patch_format import PatchOp, parse_patch
from ._patch_policy import PatchVerdict, assess_patch, leaves_sandbox, leaves_workspace
from .workspace import WorkspaceEditor

if TYPE_CHECKING:
    from ...context import ToolContext

__all__ = [
    "ApplyPatchEditor",
    "ApplyPatchOperation",
    "ApplyPatchResult",
    "ApplyPatchTool",
    "apply_diff",
]


@dataclass
class ApplyPatchOperation:
    """One operation the model asked for."""

    type: Literal["create_file", "update_file", "delete_file"]
    path: str
    diff: str | None = None
    ctx_wrapper: Any = None
    move_to: str | None = None


@dataclass
class ApplyPatchResult:
    """What a call did (its text goes back to the model)."""

    status: Literal["completed", "failed"] | None = None
    output: str | None = None


@dataclass
class _Outcome(ApplyPatchResult):
    badge: str | None = None  # the verdict the card shows


@runtime_checkable
class ApplyPatchEditor(Protocol):
    """Your own editor: applies each operation (sync or async; may return a result or text)."""

    def create_file(self, operation: ApplyPatchOperation) -> Any: ...

    def update_file(self, operation: ApplyPatchOperation) -> Any: ...

    def delete_file(self, operation: ApplyPatchOperation) -> Any: ...


def _told(_ctx: Any, error: Exception) -> str:
    return str(error) or type(error).__name__


@dataclass(frozen=True)
class PatchPolicy:
    """One run's policy for patches."""

    approval: str
    mode: str
    workspace: Path


@dataclass(eq=False)
class ApplyPatchTool(ToolCapabilities):
    """The apply_patch tool; ``editor`` defaults to a ``WorkspaceEditor`` of the run's
    workspace (all operations of a call apply, or none).

    ``approval_policy``, ``sandbox_mode`` and ``workspace`` left None come from the run's
    ``RunConfig``, else the defaults (``untrusted``, ``workspace-write``, the current folder),
    as for ``ShellTool``."""

    editor: ApplyPatchEditor | WorkspaceEditor | None = None
    needs_approval: Any = None
    """None: the run's policy decides (as Codex does for patches); else as for any tool, a
    bool or ``(run_context, arguments, call_id) -> bool``. Writing outside the writable
    folders always needs a person, whatever this says."""
    approval_policy: ApprovalPolicy | None = None
    sandbox_mode: SandboxMode | None = None
    workspace: str | os.PathLike[str] | None = None
    """Where patches apply (with your own ``WorkspaceEditor``: its root)."""
    on_approval: Any = None
    """Decides instead of a person when a call needs approval: ``(run_context,
    approval_item) -> {"approve": bool, "reason": str}`` (sync or async), as in the SDK."""

    name: str = field(default="apply_patch", init=False)
    failure_error_function: Any = field(default_factory=lambda: _told, init=False, repr=False)
    """A patch that does not apply is told to the model (with where and why)."""

    def __post_init__(self) -> None:
        check_policy_names(self.approval_policy, self.sandbox_mode, type(self).__name__)
        if self.editor is not None and not isinstance(
            self.editor, (WorkspaceEditor, ApplyPatchEditor)
        ):
            raise UserError(
                "ApplyPatchTool: editor must be a WorkspaceEditor or have create_file, "
                f"update_file and delete_file methods, got {type(self.editor).__name__}."
            )
        if self.workspace is not None:
            folder = os.path.realpath(self.workspace)
            if not os.path.isdir(folder):
                raise UserError(f"ApplyPatchTool: the workspace {folder!r} is not a folder.")
            if isinstance(self.editor, WorkspaceEditor) and Path(folder) != self.editor.root:
                raise UserError(
                    "ApplyPatchTool: give the workspace or a WorkspaceEditor of it, not both."
                )
        if self.needs_approval is None:
            self.needs_approval = self._policy_asks

    @property
    def network_access(self) -> None:
        """Patches use no network: the shared policy's setting is the run config's."""
        return None

    @property
    def allow_env(self) -> tuple[str, ...]:
        """Patches run no command: no environment variable is passed."""
        return ()

    def policy_for(self, run_config: Any) -> PatchPolicy:
        """The policy in a run with ``run_config`` (None: the tool's own and the defaults)."""
        shared = ExecPolicy.resolve(self, run_config)
        editor = self.editor
        root = editor.root if isinstance(editor, WorkspaceEditor) else shared.sandbox.workspace
        return PatchPolicy(shared.approval, shared.sandbox.mode, root)

    def verdict(self, arguments: Mapping[str, Any], run_config: Any) -> PatchVerdict:
        """What the policy says of a call with ``arguments`` (before anyone is asked)."""
        policy = self.policy_for(run_config)
        paths = [
            str(p)
            for o in arguments.get("operations") or []
            for p in (o.get("path"), o.get("move_to"))
            if p
        ]
        return assess_patch(paths, policy.approval, policy.mode, policy.workspace)

    def _policy_asks(self, ctx: Any, arguments: dict[str, Any], _call_id: str) -> bool:
        return self.verdict(arguments, getattr(ctx, "run_config", None)).decision == "ask"


_SCHEMA = {
    "type": "object",
    "properties": {
        "patch": {
            "type": "string",
            "description": (
                "The whole patch: '*** Begin Patch', then for each file '*** Add File: PATH' "
                "with '+' lines, '*** Delete File: PATH', or '*** Update File: PATH' (optionally "
                "'*** Move to: NEW') with '@@' hunks of ' ' context, '-' removed and '+' added "
                "lines; then '*** End Patch'. Paths are relative to the workspace."
            ),
        }
    },
    "required": ["patch"],
    "additionalProperties": False,
}


def _ops_json(ops: list[PatchOp]) -> str:
    operations = []
    for o in ops:
        entry: dict[str, Any] = {"type": o.type, "path": o.path, "diff": o.diff}
        if o.move_to:
            entry["move_to"] = o.move_to
        if o.style != "v4a":
            entry["style"] = o.style
        operations.append(entry)
    return json.dumps({"operations": operations})


def _ops(data: Mapping[str, Any]) -> list[PatchOp]:
    return [
        PatchOp(
            o["type"],
            o.get("path") or "",
            o.get("diff") or "",
            o.get("move_to") or None,
            "codex" if o.get("style") == "codex" else "v4a",
        )
        for o in data.get("operations") or []
    ]


def _refusal(verdict: PatchVerdict, policy: PatchPolicy) -> _Outcome:
    if policy.approval == "never":
        text = (
            f"patch rejected: {verdict.reason}, and the approval policy is 'never' (nobody can "
            "approve it). Change only files in the workspace."
        )
    else:
        text = (
            f"patch rejected: {verdict.reason}, which needs the user's approval, and this tool "
            "does not ask. Change only files in the workspace."
        )
    return _Outcome("failed", text, badge="refused")


def _where_badge(ops: list[PatchOp], workspace: Path) -> str:
    paths = [p for o in ops for p in (o.path, o.move_to) if p]
    inside = not any(leaves_sandbox(p, workspace) for p in paths)
    return "writes: workspace" if inside else "writes: outside workspace"


async def _in_thread(editor: WorkspaceEditor, ops: list[PatchOp], allow_outside: bool) -> Any:
    """``editor.apply`` on a worker thread; a cancelled call (Stop, its timeout) tells the
    thread to stop and waits until it has put everything back."""
    cancel = threading.Event()
    work = asyncio.ensure_future(
        asyncio.to_thread(editor.apply, ops, allow_outside=allow_outside, cancel=cancel)
    )
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        cancel.set()
        await asyncio.wait({work})
        if not work.cancelled():
            work.exception()  # retrieved: it is the cancellation's
        raise


def _normalised(answer: Any) -> ApplyPatchResult | None:
    """An editor's answer as the SDK reads it (a result, a mapping, text or None)."""
    if answer is None or isinstance(answer, ApplyPatchResult):
        return answer
    if isinstance(answer, Mapping):
        status = answer.get("status")
        output = answer.get("output")
        return ApplyPatchResult(
            status if status in ("completed", "failed") else None,
            None if output is None else str(output),
        )
    return ApplyPatchResult(output=str(answer))


async def _with_editor(editor: Any, ops: list[PatchOp], ctx: Any) -> _Outcome:
    """Each operation through your editor, as the SDK runs them: every one runs and the
    outputs are joined by lines.

    Raises:
        PatchError: An operation was reported ``failed``: the call failed (as the SDK reports
            it), and the model is told the outputs (an operation that failed without saying
            why is named).
    """
    failed = False
    outputs = []
    for op in ops:
        diff: str | None = op.diff or None
        if op.type == "create_file" and op.style == "codex" and diff:
            diff += "\n+"  # Codex ends a new file with a newline; V4A's create mode needs a "+"
        operation = ApplyPatchOperation(op.type, op.path, diff, ctx, op.move_to)
        answer = _normalised(await call_maybe_async(getattr(editor, op.type), operation))
        if answer is None:
            continue
        if answer.status == "failed":
            failed = True
            outputs.append(answer.output or f"{op.type} {op.path} failed")
        elif answer.output:
            outputs.append(answer.output)
    if failed:
        raise PatchError("\n".join(outputs))
    return _Outcome("completed", "\n".join(outputs), badge="completed")


class ApplyPatchKind(ToolKind[ApplyPatchTool, ApplyPatchResult]):
    """``apply_patch_call`` items, or ``apply_patch`` function calls taking a whole patch."""

    def __init__(self) -> None:
        super().__init__(
            name="apply_patch",
            tool_classes=(ApplyPatchTool,),
            call_types=("apply_patch_call",),
            executable=True,
        )

    def responses_param(self, tool: ApplyPatchTool) -> dict[str, Any]:
        return {"type": "apply_patch"}

    def chat_param(self, tool: ApplyPatchTool) -> dict[str, Any] | None:
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": "Create, change, move or delete files with a patch.",
                "parameters": _SCHEMA,
            },
        }

    def parse_call(self, raw: Any) -> ParsedCall:
        op = getattr(raw, "operation", None)
        dump = getattr(op, "model_dump", None)
        data = dump() if dump is not None else dict(op or {})
        kind: Any = data.get("type") or "update_file"  # checked by argument_problem
        ops = [PatchOp(kind, data.get("path") or "", data.get("diff") or "")]
        return ParsedCall(name="apply_patch", call_id=str(raw.call_id), arguments=_ops_json(ops))

    def parse_chat_call(self, raw: Any) -> ParsedCall:
        try:
            patch = json.loads(raw.arguments or "{}").get("patch", "")
            arguments = _ops_json(parse_patch(str(patch)))
        except (ValueError, AttributeError) as e:  # PatchError included: told to the model
            arguments = json.dumps({"error": str(e)})
        return ParsedCall(name=raw.name, call_id=raw.call_id, arguments=arguments)

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return json_object(arguments)

    def argument_problem(self, tool: ApplyPatchTool, arguments: str) -> str | None:
        data = self.parsed_arguments(arguments)
        if "error" in data:
            return f"The patch could not be read: {data['error']} Send the whole patch again."
        ops = data.get("operations") or []
        if not ops or any(
            not isinstance(o, dict)
            or o.get("type") not in ("create_file", "update_file", "delete_file")
            or not isinstance(o.get("path"), str)
            or not isinstance(o.get("diff", ""), str)
            for o in ops
        ):
            return "Each operation is create_file, update_file or delete_file, with a path."
        return None

    async def invoke(
        self, tool: ApplyPatchTool, ctx: ToolContext[Any], arguments: str
    ) -> ApplyPatchResult:
        ops = _ops(self.parsed_arguments(arguments))
        policy = tool.policy_for(ctx.run_config)
        verdict = tool.verdict(self.parsed_arguments(arguments), ctx.run_config)
        approved = approved_call.get() == ctx.tool_call_id
        if not approved and not verdict.confined:
            return _refusal(verdict, policy)
        editor = tool.editor if tool.editor is not None else WorkspaceEditor(policy.workspace)
        if not isinstance(editor, WorkspaceEditor):
            return await _with_editor(editor, ops, ctx)
        allow_outside = approved or policy.mode == "danger-full-access"
        done = await _in_thread(editor, ops, allow_outside)
        return _Outcome("completed", "\n".join(done), badge=_where_badge(ops, editor.root))

    def decided_alone(self, arguments: str, tool: Any = None, run_config: Any = None) -> bool:
        """A patch that may write outside the workspace, or where the sandbox keeps files
        read-only (any ``.git``, a Python environment, ...: see ``leaves_sandbox``), is
        decided on its own: an "always" given to patches inside it does not cover it."""
        paths = [
            str(p)
            for o in self.parsed_arguments(arguments).get("operations") or []
            if isinstance(o, dict)
            for p in (o.get("path"), o.get("move_to"))
            if p
        ]
        if any(leaves_workspace(p) for p in paths):
            return True
        if not isinstance(tool, ApplyPatchTool):
            return False
        workspace = tool.policy_for(run_config).workspace
        return any(leaves_sandbox(p, workspace) for p in paths)

    def output_item(self, call: ParsedCall, value: ApplyPatchResult | str) -> dict[str, Any]:
        ok = isinstance(value, ApplyPatchResult) and value.status != "failed"
        text = value.output if isinstance(value, ApplyPatchResult) else str(value)
        return {
            "type": "apply_patch_call_output",
            "call_id": call.call_id,
            "status": "completed" if ok else "failed",
            "output": text or "",
        }

    def chat_output_item(self, call: ParsedCall, value: ApplyPatchResult | str) -> dict[str, Any]:
        text = value.output if isinstance(value, ApplyPatchResult) else str(value)
        return {"type": "function_call_output", "call_id": call.call_id, "output": text or ""}

    def describe(self, raw: Any, output: object = None) -> ToolDisplay:
        call = self.parse_chat_call(raw) if raw.type == "function_call" else self.parse_call(raw)
        data = self.parsed_arguments(call.arguments)
        parts = tuple(
            DisplayPart("diff", f"{o['type']} {o['path']}\n{o.get('diff') or ''}", role="call")
            for o in data.get("operations") or []
            if isinstance(o, dict)
        )
        if output is not None:
            text = output.output if isinstance(output, ApplyPatchResult) else str(output)
            parts += (DisplayPart("text", text or ""),)
        badge = output.badge if isinstance(output, _Outcome) else None
        return ToolDisplay(
            kind=self.name, title="apply_patch", arguments=data, parts=parts, badge=badge
        )


APPLY_PATCH = ApplyPatchKind()
"""The kind of apply_patch tools."""

register_tool_kind(APPLY_PATCH)
