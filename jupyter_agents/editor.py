"""File editing for ``ApplyPatchTool``, at the path the OpenAI Agents SDK uses
(``agents.editor``): the same objects as ``jupyter_agents``'s."""

from __future__ import annotations

from .runtime.tools.patch.apply_patch import ApplyPatchEditor, ApplyPatchOperation, ApplyPatchResult

__all__ = ["ApplyPatchEditor", "ApplyPatchOperation", "ApplyPatchResult"]
