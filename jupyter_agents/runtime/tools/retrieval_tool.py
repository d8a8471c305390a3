"""``retrieval``: the registered tool that searches a ``DocumentStore`` and answers with
numbered references that cite file and page or section.

What the model should know about the search follows the passages as ``Note:`` lines: files the
first indexing pass could not read (a few, by name), and a search by keywords only because
embeddings were unavailable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UserError
from ..retrieval import DocumentStore, IndexReport, format_references
from .base_tool import BaseTool
from .registry import register_tool

__all__ = ["Retrieval", "default_store"]

default_store: Callable[[], DocumentStore | None] | None = None
"""Where a ``retrieval`` tool without a ``store`` finds its documents (the notebook layer sets
it to the notebook's store, so ``Agent(tools=["retrieval"])`` searches what
``%agent docs add`` added)."""


@register_tool("retrieval")
class Retrieval(BaseTool):
    """Search documents. Settings: ``store`` (a ``DocumentStore``, or a folder to open one
    on), ``max_ref_token`` (4000), ``k`` (passages, 5), ``mode`` (``hybrid``, ``keyword`` or
    ``vector``). The store is brought up to date before the first search."""

    description = (
        "Search the user's documents. Answers with numbered passages and where each comes "
        "from (file and page or section); cite them."
    )
    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What to look for."}},
        "required": ["query"],
    }
    defaults = {"max_ref_token": 4000, "k": 5, "mode": "hybrid"}
    read_only = True  # a search changes nothing: offered in ask and plan modes

    def __init__(self, cfg: dict[str, Any] | None = None, **options: Any) -> None:
        super().__init__(cfg, **options)
        store = self.setting("store")
        if store is None and default_store is not None:
            store = default_store()  # in a notebook: the documents of %agent docs add
        if store is None:
            raise UserError(
                "The retrieval tool needs documents: {'name': 'retrieval', 'store': "
                "DocumentStore('docs')} (or, in a notebook, %agent docs add PATH)."
            )
        self.store = store if isinstance(store, DocumentStore) else DocumentStore(store)
        self._fresh = False

    async def call(self, params: dict[str, Any], **kwargs: Any) -> str:
        notes: list[str] = []
        if not self._fresh:
            notes += _report_notes(await self.store.aindex())
            self._fresh = True
        result = await self.store.asearch_result(
            str(params["query"]), int(self.setting("k")), self.setting("mode")
        )
        if result.warnings:  # says the same as the index's warning about embeddings
            notes = [n for n in notes if not n.startswith("Embeddings unavailable")]
        notes += result.warnings
        answer = format_references(result.hits, int(self.setting("max_ref_token")))
        return "\n\n".join([answer, *(f"Note: {note}" for note in notes)])


def _report_notes(report: IndexReport, shown: int = 5) -> list[str]:
    """What the model should know of an indexing pass: a few files not read, and why."""
    notes = list(report.warnings[:shown])
    if report.skipped:
        named = [f"{path} ({why})" for path, why in list(report.skipped.items())[:shown]]
        more = len(report.skipped) - len(named)
        notes.append(
            f"{len(report.skipped)} file(s) could not be searched: {'; '.join(named)}"
            + (f"; and {more} more." if more else ".")
        )
    return notes
