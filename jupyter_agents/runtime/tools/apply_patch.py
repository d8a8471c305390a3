"""``ApplyPatchTool``: the model edits files with patches (the Responses ``apply_patch`` tool).

On the Responses API each ``apply_patch_call`` carries one operation (create, update or delete
one file); Chat Completions models get a function tool ``apply_patch`` taking a whole patch
(several files, see ``_patch_format``). With no editor, a :class:`WorkspaceEditor` applies the
operations under the current folder, all or none. Calls go through approvals like any tool;
the card shows the diff of each file.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from .._util import call_maybe_async
from ..errors import UserError
from ._patch_format import PatchError, PatchOp, apply_diff, parse_patch
from .kinds import DisplayPart, ParsedCall, ToolDisplay, ToolKind, register_tool_kind
from .workspace import WorkspaceEditor

if TYPE_CHECKING:
    from ..context import ToolContext

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


@runtime_checkable
class ApplyPatchEditor(Protocol):
    """Your own editor: applies each operation (sync or async; may return a result or text)."""

    def create_file(self, operation: ApplyPatchOperation) -> Any: ...

    def update_file(self, operation: ApplyPatchOperation) -> Any: ...

    def delete_file(self, operation: ApplyPatchOperation) -> Any: ...


def _told(_ctx: Any, error: Exception) -> str:
    return str(error)


@dataclass(eq=False)
class ApplyPatchTool:
    """The apply_patch tool; ``editor`` defaults to a :class:`WorkspaceEditor` of the current
    folder (all operations of a call apply, or none)."""

    editor: ApplyPatchEditor | WorkspaceEditor | None = None
    needs_approval: Any = False
    """As for any tool: a bool, or ``(run_context, arguments, call_id) -> bool``."""

    name: str = field(default="apply_patch", init=False)
    failure_error_function: Any = field(default_factory=lambda: _told, init=False, repr=False)
    """A patch that does not apply is told to the model (with where and why)."""

    def __post_init__(self) -> None:
        if self.editor is None:
            self.editor = WorkspaceEditor()
        elif not isinstance(self.editor, (WorkspaceEditor, ApplyPatchEditor)):
            raise UserError(
                "ApplyPatchTool: editor must be a WorkspaceEditor or have create_file, "
                f"update_file and delete_file methods, got {type(self.editor).__name__}."
            )


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
    return json.dumps(
        {
            "operations": [
                {"type": o.type, "path": o.path, "diff": o.diff, "move_to": o.move_to} for o in ops
            ]
        }
    )


class ApplyPatchKind(ToolKind):
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
        try:
            value = json.loads(arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def argument_problem(self, tool: Any, arguments: str) -> str | None:
        data = self.parsed_arguments(arguments)
        if "error" in data:
            return f"The patch could not be read: {data['error']} Send the whole patch again."
        ops = data.get("operations") or []
        if not ops or any(
            o.get("type") not in ("create_file", "update_file", "delete_file") for o in ops
        ):
            return "Each operation is create_file, update_file or delete_file, with a path."
        return None

    async def invoke(self, tool: ApplyPatchTool, ctx: ToolContext[Any], arguments: str) -> Any:
        ops = [
            PatchOp(o["type"], o.get("path") or "", o.get("diff") or "", o.get("move_to"))
            for o in self.parsed_arguments(arguments)["operations"]
        ]
        editor = tool.editor
        if isinstance(editor, WorkspaceEditor):
            done = await asyncio.to_thread(editor.apply, ops)
            return ApplyPatchResult("completed", "Done: " + "; ".join(done) + ".")
        lines = []
        for op in ops:
            operation = ApplyPatchOperation(op.type, op.path, op.diff, ctx, op.move_to)
            answer = await call_maybe_async(getattr(editor, op.type), operation)
            if isinstance(answer, ApplyPatchResult):
                if answer.status == "failed":
                    raise PatchError(answer.output or f"{op.type} {op.path} failed.")
                answer = answer.output
            lines.append(str(answer) if answer else f"{op.type.replace('_', ' ')} {op.path}")
        return ApplyPatchResult("completed", "Done: " + "; ".join(lines) + ".")

    def output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        ok = isinstance(value, ApplyPatchResult) and value.status != "failed"
        text = value.output if isinstance(value, ApplyPatchResult) else str(value)
        return {
            "type": "apply_patch_call_output",
            "call_id": call.call_id,
            "status": "completed" if ok else "failed",
            "output": text or "",
        }

    def chat_output_item(self, call: ParsedCall, value: Any) -> dict[str, Any]:
        text = value.output if isinstance(value, ApplyPatchResult) else str(value)
        return {"type": "function_call_output", "call_id": call.call_id, "output": text or ""}

    def describe(self, raw: Any, output: Any = None) -> ToolDisplay:
        data = self.parsed_arguments(self.parse_call(raw).arguments)
        parts = tuple(
            DisplayPart("diff", f"{o['type']} {o['path']}\n{o.get('diff') or ''}")
            for o in data.get("operations") or []
        )
        if output is not None:
            text = output.output if isinstance(output, ApplyPatchResult) else str(output)
            parts += (DisplayPart("text", text or ""),)
        return ToolDisplay(kind=self.name, title="apply_patch", arguments=data, parts=parts)


APPLY_PATCH = ApplyPatchKind()
"""The kind of apply_patch tools."""

register_tool_kind(APPLY_PATCH)
