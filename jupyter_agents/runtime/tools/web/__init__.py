"""The web for any model: ``web_fetch`` reads a page as Markdown, ``web_search`` searches
through a provider (SearXNG, Brave, Tavily, or an OpenAI-compatible search endpoint). Both are
function tools, so they work with every model, unlike the provider-hosted ``WebSearchTool``.

``rules.py`` decides where they may go (pure functions), ``fetch.py`` makes one bounded GET
within those rules, ``html_markdown.py`` turns HTML into Markdown, ``providers.py`` holds the
search providers, and ``web_fetch.py`` and ``web_search.py`` build the tools.
"""

from __future__ import annotations

from .providers import (
    BraveSearch,
    OpenAICompatibleSearch,
    SearchProvider,
    SearchRequest,
    SearchResult,
    SearxngSearch,
    TavilySearch,
)
from .rules import WebRules
from .web_fetch import web_fetch_tool
from .web_search import web_search_tool

__all__ = [
    "BraveSearch",
    "OpenAICompatibleSearch",
    "SearchProvider",
    "SearchRequest",
    "SearchResult",
    "SearxngSearch",
    "TavilySearch",
    "WebRules",
    "web_fetch_tool",
    "web_search_tool",
]
