"""Search providers for ``web_search``: where a query goes, and how its answer is read.

Each provider is a small class: its ``base_url``, its ``api_key`` (from the environment
variable the provider documents when not given), the request it makes (``request``) and how
its JSON answer becomes ``SearchResult`` s (``results``). ``SearchProvider.search`` does the
HTTP, bounded in time and size, and turns every failure into ``SearchFailed`` with one line.

- ``SearxngSearch``: a SearXNG instance, ``GET {base_url}/search?q=...&format=json``
  (its JSON format must be enabled in the instance's ``settings.yml``).
- ``BraveSearch``: the Brave Search API, ``GET {base_url}/web/search?q=...&count=n`` with
  the ``X-Subscription-Token`` header; results in ``web.results`` (``title``, ``url``,
  ``description``).
- ``TavilySearch``: ``POST {base_url}/search`` with ``{"query", "max_results"}`` and
  ``Authorization: Bearer``; results in ``results`` (``title``, ``url``, ``content``).
- ``OpenAICompatibleSearch``: any endpoint of the Perplexity-style search shape that LiteLLM's
  proxy serves: ``POST {base_url}{path}`` with ``{"query", "max_results"}`` and an optional
  bearer key; results in ``results`` (``title``, ``url``, and ``snippet`` or ``content``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

from ...errors import UserError
from .html_markdown import clean_text

__all__ = [
    "BraveSearch",
    "OpenAICompatibleSearch",
    "SearchFailed",
    "SearchProvider",
    "SearchRequest",
    "SearchResult",
    "SearxngSearch",
    "TavilySearch",
]

MAX_ANSWER_BYTES = 2_000_000
"""The largest answer read from a provider."""


class SearchFailed(Exception):
    """A search that did not work; its message is the one line the model reads."""


@dataclass(frozen=True)
class SearchResult:
    """One result, as a provider gave it (untrusted text)."""

    title: str
    """The page's title."""
    url: str
    """The page's address."""
    snippet: str
    """A short extract of the page."""


@dataclass(frozen=True)
class SearchRequest:
    """One HTTP request to a provider."""

    method: str
    """``GET`` or ``POST``."""
    url: str
    """The endpoint."""
    params: Mapping[str, str] = field(default_factory=dict)
    """The query string."""
    json: Mapping[str, Any] | None = None
    """The JSON body, for a POST."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Headers, the key's among them."""


def _key(given: str | None, names: tuple[str, ...], provider: str) -> str:
    """The API key: ``given``, else the first of the environment variables ``names`` set."""
    for value in (given, *(os.environ.get(n) for n in names)):
        if value and value.strip():
            return value.strip()
    raise UserError(f"{provider} needs an API key: set {' or '.join(names)}, or pass api_key=... .")


def _texts(item: Any, *keys: str) -> str:
    """The first of ``keys`` that ``item`` holds as a string (empty when none)."""
    for key in keys:
        value = item.get(key) if isinstance(item, dict) else None
        if isinstance(value, str):
            return value
    return ""


def _list_at(data: Any, *path: str) -> list[Any]:
    """The list at ``path`` in ``data`` (empty when the path is absent: no results)."""
    for key in path:
        if not isinstance(data, dict):
            raise ValueError(f"expected an object holding {key!r}")
        data = data.get(key)
        if data is None:
            return []
    if not isinstance(data, list):
        raise ValueError(f"{'.'.join(path)} is not a list")
    return data


def _read(items: list[Any], snippet_keys: tuple[str, ...]) -> list[SearchResult]:
    return [
        SearchResult(_texts(item, "title"), _texts(item, "url"), _texts(item, *snippet_keys))
        for item in items
        if isinstance(item, dict)
    ]


class SearchProvider:
    """A search service ``web_search`` sends queries to (subclass it for another one)."""

    label: ClassVar[str] = "search"
    """The provider's name, as the model reads it in errors."""
    key_variables: ClassVar[tuple[str, ...]] = ()
    """The environment variables its API key may come from."""
    base_url: str
    """Where the provider's API is."""

    def request(self, query: str, max_results: int) -> SearchRequest:
        """The HTTP request for ``query``."""
        raise NotImplementedError

    def results(self, data: Any) -> list[SearchResult]:
        """The results in the provider's parsed JSON answer.

        Raises:
            ValueError: the answer is not in the shape the provider documents.
        """
        raise NotImplementedError

    async def search(self, query: str, max_results: int, timeout: float) -> list[SearchResult]:
        """The results for ``query``; at most ``max_results`` of them.

        Raises:
            SearchFailed: the provider could not be reached, did not answer in time,
                answered with an HTTP error or with something that is not its JSON.
        """
        request = self.request(query, max_results)
        status, reason, body = await _send(self.label, request, timeout)
        if status >= 300:
            raise SearchFailed(_status_line(self, status, reason))
        try:
            data = json.loads(body)
        except ValueError:
            raise SearchFailed(f"{self.label} answered with something that is not JSON.") from None
        try:
            return self.results(data)[:max_results]
        except (ValueError, TypeError, AttributeError) as e:
            raise SearchFailed(
                f"{self.label}'s answer is not in the shape it documents ({e})."
            ) from None


async def _send(label: str, request: SearchRequest, timeout: float) -> tuple[int, str, bytes]:
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client,
            client.stream(
                request.method,
                request.url,
                params=dict(request.params),
                json=dict(request.json) if request.json is not None else None,
                headers=dict(request.headers),
            ) as response,
        ):
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise SearchFailed(
                        f"{label}'s answer is larger than {MAX_ANSWER_BYTES:,} bytes; not read."
                    )
            return response.status_code, response.reason_phrase, bytes(body)
    except httpx.TimeoutException:
        raise SearchFailed(f"{label} did not answer within {timeout:g} s.") from None
    except httpx.HTTPError as e:
        raise SearchFailed(f"{label} could not be reached ({type(e).__name__}: {e}).") from None


def _status_line(provider: SearchProvider, status: int, reason: str) -> str:
    reason = " ".join(clean_text(reason).split())[:100]  # the server's words
    line = f"{provider.label} answered HTTP {status} {reason}".rstrip()
    if status in (401, 403) and provider.key_variables:
        return f"{line}: check the API key ({' or '.join(provider.key_variables)})."
    if status == 429:
        return f"{line}: too many searches; wait before searching again."
    if status < 400:
        return f"{line} (a redirect): set base_url to where it points."
    return f"{line}."


@dataclass
class SearxngSearch(SearchProvider):
    """A SearXNG instance (``GET /search?format=json``; enable ``json`` among the instance's
    ``search.formats``)."""

    base_url: str = field(default_factory=lambda: os.environ.get("SEARXNG_URL", ""))
    """The instance (default: ``SEARXNG_URL``), e.g. ``http://localhost:8080``."""
    api_key: str | None = None
    """Sent as a bearer token when the instance sits behind one (SearXNG itself has none)."""
    language: str | None = None
    """A language code for the results (``en``), when given."""
    label: ClassVar[str] = "SearXNG"

    def __post_init__(self) -> None:
        if not self.base_url:
            raise UserError("SearxngSearch needs base_url= (or SEARXNG_URL) naming the instance.")

    def request(self, query: str, max_results: int) -> SearchRequest:
        params = {"q": query, "format": "json"}
        if self.language:
            params["language"] = self.language
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return SearchRequest("GET", f"{self.base_url.rstrip('/')}/search", params, None, headers)

    def results(self, data: Any) -> list[SearchResult]:
        return _read(_list_at(data, "results"), ("content",))


@dataclass
class BraveSearch(SearchProvider):
    """The Brave Search API (``GET /res/v1/web/search``, ``X-Subscription-Token``)."""

    api_key: str | None = None
    """The key (default: ``BRAVE_API_KEY``, else ``BRAVE_SEARCH_API_KEY``)."""
    base_url: str = "https://api.search.brave.com/res/v1"
    """The API."""
    label: ClassVar[str] = "Brave Search"
    key_variables: ClassVar[tuple[str, ...]] = ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")

    def __post_init__(self) -> None:
        self.api_key = _key(self.api_key, self.key_variables, "BraveSearch")

    def request(self, query: str, max_results: int) -> SearchRequest:
        return SearchRequest(
            "GET",
            f"{self.base_url.rstrip('/')}/web/search",
            {"q": query, "count": str(min(max_results, 20))},
            None,
            {"Accept": "application/json", "X-Subscription-Token": str(self.api_key)},
        )

    def results(self, data: Any) -> list[SearchResult]:
        return _read(_list_at(data, "web", "results"), ("description",))


@dataclass
class TavilySearch(SearchProvider):
    """Tavily (``POST /search``, ``Authorization: Bearer``)."""

    api_key: str | None = None
    """The key (default: ``TAVILY_API_KEY``)."""
    base_url: str = "https://api.tavily.com"
    """The API."""
    label: ClassVar[str] = "Tavily"
    key_variables: ClassVar[tuple[str, ...]] = ("TAVILY_API_KEY",)

    def __post_init__(self) -> None:
        self.api_key = _key(self.api_key, self.key_variables, "TavilySearch")

    def request(self, query: str, max_results: int) -> SearchRequest:
        return SearchRequest(
            "POST",
            f"{self.base_url.rstrip('/')}/search",
            {},
            {"query": query, "max_results": min(max_results, 20)},
            {"Authorization": f"Bearer {self.api_key}"},
        )

    def results(self, data: Any) -> list[SearchResult]:
        return _read(_list_at(data, "results"), ("content",))


@dataclass
class OpenAICompatibleSearch(SearchProvider):
    """An endpoint of the Perplexity-style search shape (LiteLLM's proxy serves it at
    ``/v1/search/{tool}``): ``POST {base_url}{path}`` with ``{"query", "max_results"}``,
    answered with ``{"results": [{"title", "url", "snippet" or "content"}]}``."""

    base_url: str
    """The server, e.g. ``http://localhost:4000/v1``."""
    path: str = "/search"
    """The endpoint under ``base_url`` (``/search/my-search-tool`` for a LiteLLM proxy)."""
    api_key: str | None = None
    """Sent as a bearer token when given (no environment variable is read: name yours)."""
    label: ClassVar[str] = "the search endpoint"

    def request(self, query: str, max_results: int) -> SearchRequest:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return SearchRequest(
            "POST",
            f"{self.base_url.rstrip('/')}/{self.path.lstrip('/')}",
            {},
            {"query": query, "max_results": max_results},
            headers,
        )

    def results(self, data: Any) -> list[SearchResult]:
        return _read(_list_at(data, "results"), ("snippet", "content"))
