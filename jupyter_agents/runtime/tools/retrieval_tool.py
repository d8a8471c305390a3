"""``retrieval``: the registered tool that searches a :class:`DocumentStore` and answers with
numbered references that cite file and page or section."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UserError
from ..retrieval import DocumentStore, format_references
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
        if not self._fresh:
            await self.store.aindex()
            self._fresh = True
        hits = await self.store.asearch(
            str(params["query"]), int(self.setting("k")), self.setting("mode")
        )
        return format_references(hits, int(self.setting("max_ref_token")))
