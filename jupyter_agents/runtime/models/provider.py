"""Model providers: turning a model name into a model, and the OpenAI defaults.

The ``openai`` package is imported only when a model is first needed.

Which API is used by default:

1. ``set_default_openai_api("responses" | "chat_completions")``, if called;
2. else the ``JUPYTER_AGENTS_OPENAI_API`` environment variable;
3. else Chat Completions when ``OPENAI_BASE_URL`` points somewhere other than OpenAI (Ollama,
   vLLM and most compatible servers speak it), and the Responses API otherwise.

Per agent, pass a model object instead: ``Agent(model=OpenAIChatCompletionsModel("gpt-4.1"))``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlsplit

from ..errors import UserError
from ..model_settings import DEFAULT_READ_TIMEOUT, ModelTimeout
from ..tracing_key import set_tracing_export_key
from .interface import Model, ModelProvider

if TYPE_CHECKING:
    from openai import AsyncOpenAI, Timeout

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_TIMEOUT",
    "OpenAIProvider",
    "client_timeout",
    "default_model_name",
    "default_provider",
    "get_default_openai_api",
    "is_official_openai_base_url",
    "is_official_openai_client",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
    "set_default_openai_responses_transport",
]

DEFAULT_MODEL = "gpt-4.1"
"""The model used when neither the agent nor the run names one (``OPENAI_DEFAULT_MODEL`` wins)."""

DEFAULT_MODEL_TIMEOUT = DEFAULT_READ_TIMEOUT
"""Seconds a model's answer may stay silent by default (between two chunks of a stream, or a
whole non-streamed answer); connecting takes at most 5 s and a stream's first event 30 s
(``ModelSettings.timeout`` changes them, see ``ModelTimeout``)."""

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Where the ``openai`` client sends requests when nothing says otherwise."""

OpenAIAPI = Literal["responses", "chat_completions"]

_settings: dict[str, Any] = {"api": None, "client": None, "key": None}
_provider: OpenAIProvider | None = None
_default_pool: ClientPool


def is_official_openai_base_url(base_url: object, *, websocket: bool = False) -> bool:
    """Whether ``base_url`` is OpenAI's own endpoint: exactly the host ``api.openai.com``
    over HTTPS (``wss`` with ``websocket``), not a proxy or a look-alike name."""
    parts = urlsplit(str(base_url))
    return parts.scheme == ("wss" if websocket else "https") and parts.hostname == "api.openai.com"


def is_official_openai_client(client: AsyncOpenAI) -> bool:
    """Whether ``client`` talks to OpenAI's own endpoint (a client without a ``base_url``:
    no)."""
    base_url = getattr(client, "base_url", None)
    return base_url is not None and is_official_openai_base_url(base_url)


def set_default_openai_key(key: str) -> None:
    """Use ``key`` instead of ``OPENAI_API_KEY`` for the default client."""
    _settings["key"] = key
    _reset()


def set_default_openai_client(client: AsyncOpenAI, use_for_tracing: bool = True) -> None:
    """Use ``client`` (an ``openai.AsyncOpenAI``) for every OpenAI model without its own.

    With ``use_for_tracing`` (the default, as in the SDK), its API key is also the one traces
    are exported to OpenAI with (``runtime.tracing_key``), when such an exporter is in use:
    traces leave the process only through a processor you add. False leaves that key alone.
    """
    _settings["client"] = client
    _reset()
    if use_for_tracing:
        _use_key_for_tracing(getattr(client, "api_key", None))


def _use_key_for_tracing(key: Any) -> None:
    if isinstance(key, str) and key:
        set_tracing_export_key(key)


def set_default_openai_api(api: OpenAIAPI) -> None:
    """Pick the API used for model names: ``"responses"`` or ``"chat_completions"``."""
    if api not in ("responses", "chat_completions"):
        raise UserError(f"Unknown OpenAI API {api!r}: use 'responses' or 'chat_completions'.")
    _settings["api"] = api
    _reset()


def set_default_openai_responses_transport(transport: Literal["http", "websocket"]) -> None:
    """Pick how Responses API requests travel: ``"http"`` (the only transport here).

    ``"websocket"`` (the OpenAI Agents SDK's persistent Responses connection) is a
    ``UserError``: this project sends every Responses request over HTTP.
    """
    if transport == "websocket":
        raise UserError(
            "The Responses API over a websocket is not available in jupyter_agents: every "
            "request goes over HTTP. Remove set_default_openai_responses_transport('websocket')."
        )
    if transport != "http":
        raise ValueError(
            "Invalid OpenAI Responses transport. Expected one of: 'http', 'websocket'."
        )


def get_default_openai_api() -> OpenAIAPI:
    """The API used for model names, following the rules in this module's docstring."""
    api: str | None = _settings["api"] or os.environ.get("JUPYTER_AGENTS_OPENAI_API")
    if api == "responses":
        return "responses"
    if api == "chat_completions":
        return "chat_completions"
    if api:
        raise UserError(
            f"JUPYTER_AGENTS_OPENAI_API={api!r} is not valid: use responses or chat_completions."
        )
    base_url = os.environ.get("OPENAI_BASE_URL", "")
    if base_url and "api.openai.com" not in base_url:
        return "chat_completions"
    return "responses"


def _reset() -> None:
    global _provider, _default_pool
    _provider = None
    _default_pool = ClientPool()


def client_timeout(value: float | ModelTimeout | None) -> Timeout:
    """The ``openai`` client's timeout for ``ModelSettings.timeout`` (None: the defaults): its
    connect and read limits; a stream's first event is the run's to watch. The read limit is
    at least the first event's, which also waits on reads."""
    import openai

    limits = ModelTimeout.of(value)
    return openai.Timeout(max(limits.read, limits.first_event), connect=limits.connect)


def default_model_name() -> str:
    """The model used when neither the agent nor the run names one: ``OPENAI_DEFAULT_MODEL``,
    else ``DEFAULT_MODEL``."""
    return os.environ.get("OPENAI_DEFAULT_MODEL") or DEFAULT_MODEL


def default_provider() -> OpenAIProvider:
    """The provider used when a run names no ``model_provider``."""
    global _provider
    if _provider is None:
        _provider = OpenAIProvider()
    return _provider


_REQUEST_METHODS = (("chat", "completions", "create"), ("responses", "create"))
"""Where the models send their requests: ``client.chat.completions.create`` and
``client.responses.create``."""


def _request_method_replaced(client: Any) -> bool:
    """Whether a request method was replaced on ``client`` itself (a test's
    ``monkeypatch.setattr(client.responses, "create", fake)``): a copy of the client would not
    have the replacement and would send a real request, so the client is used as it is. No
    HTTP retry layer is under a replaced method."""
    for *path, method in _REQUEST_METHODS:
        resource = client
        for name in path:
            resource = getattr(resource, name, None)
        if method in getattr(resource, "__dict__", {}):
            return True
    return False


class ClientPool:
    """One ``AsyncOpenAI`` client per event loop.

    An HTTP connection pool belongs to the loop that opened it, and a run may happen on a
    notebook kernel's loop, on ``run_sync``'s worker loop, or on successive ``asyncio.run``
    loops. A client given by the user serves its first loop; other loops get a copy with its
    settings and a fresh connection pool.
    """

    def __init__(
        self,
        client: AsyncOpenAI | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
    ) -> None:
        self._base = client
        self._api_key = api_key
        self._base_url = base_url
        self._clients: dict[int, tuple[asyncio.AbstractEventLoop, AsyncOpenAI]] = {}
        self._lock = threading.Lock()
        self._base_taken = False

    @property
    def base_url(self) -> str:
        """Where the pool's clients send requests (no client is made to tell)."""
        base = self._base or _settings["client"]
        if base is not None:
            return str(base.base_url)
        return self._base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL

    def get(self) -> AsyncOpenAI:
        """The client for the running loop."""
        loop = asyncio.get_running_loop()
        entry = self._clients.get(id(loop))
        if entry is not None and entry[0] is loop:
            return entry[1]
        with self._lock:
            for key, (old, _) in list(self._clients.items()):
                if old.is_closed():
                    del self._clients[key]
            client = self._new_client()
            self._clients[id(loop)] = (loop, client)
        return client

    def _new_client(self) -> AsyncOpenAI:
        import openai

        base = self._base or _settings["client"]
        if base is not None:
            # One retry layer: RunConfig.model_retry. The client's own retries would multiply it.
            if not hasattr(base, "with_options") or _request_method_replaced(base):
                return cast("AsyncOpenAI", base)  # a stand-in (a test's): used as it is
            if not self._base_taken:
                self._base_taken = True
                return base.with_options(max_retries=0)
            return base.copy(http_client=openai.DefaultAsyncHttpxClient(), max_retries=0)
        api_key = self._api_key or _settings["key"] or os.environ.get("OPENAI_API_KEY")
        base_url = self._base_url or os.environ.get("OPENAI_BASE_URL") or None
        if not api_key:
            if not base_url:
                raise UserError(
                    "No OpenAI API key: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local "
                    "OpenAI-compatible server), call set_default_openai_key(...), or give the "
                    "agent a model such as jupyter_agents.testing.ScriptedModel."
                )
            api_key = "unused"  # local servers usually ignore the key but the client needs one
        return openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=client_timeout(None),
        )


class OpenAIProvider(ModelProvider):
    """Models served by OpenAI or any OpenAI-compatible server."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        openai_client: AsyncOpenAI | None = None,
        use_responses: bool | None = None,
    ) -> None:
        """Create a provider.

        Args:
            api_key: API key (default: ``OPENAI_API_KEY``).
            base_url: Server URL (default: ``OPENAI_BASE_URL``, else OpenAI).
            openai_client: A ready client; its settings are reused on every event loop.
            use_responses: Force the Responses API (True) or Chat Completions (False).
        """
        self._pool = ClientPool(openai_client, api_key, base_url)
        self._use_responses = use_responses

    def get_model(self, model_name: str | None) -> Model:
        # Imported here so that `import jupyter_agents` does not load the openai package.
        from .openai_chat import OpenAIChatCompletionsModel
        from .openai_responses import OpenAIResponsesModel

        name = model_name or default_model_name()
        use_responses = self._use_responses
        if use_responses is None:
            use_responses = get_default_openai_api() == "responses"
        if use_responses:
            # A default name only: a stored prompt's own model is then left to the prompt.
            return OpenAIResponsesModel(
                name, model_is_explicit=model_name is not None, client_pool=self._pool
            )
        return OpenAIChatCompletionsModel(name, client_pool=self._pool)


def shared_client_pool() -> ClientPool:
    """The pool serving models built without their own client."""
    return _default_pool


_default_pool = ClientPool()
