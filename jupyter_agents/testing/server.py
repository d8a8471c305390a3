"""A local OpenAI-compatible HTTP server that answers with scripted replies.

`FakeOpenAIServer` listens on 127.0.0.1 on a free port and speaks enough of the
OpenAI API for the real `openai` client: `POST /v1/responses` and
`POST /v1/chat/completions` (both streaming and not), Anthropic's `POST /v1/messages` (both
streaming and not, for LiteLLM: see `jupyter_agents.testing.anthropic_server`),
`GET /v1/models`, and
`POST /v1/embeddings` (deterministic vectors: a hashed bag of words, see
`jupyter_agents.testing._server_embeddings`). Each model
request consumes the next scripted reply, whichever endpoint it hits; every request is
recorded. The server side uses only the standard library.

Example:
    ```python
    with FakeOpenAIServer() as server:
        server.enqueue(tool_call_reply("get_weather", {"city": "Paris"}), "Sunny.")
        client = openai.OpenAI(
            base_url=server.base_url, api_key=server.api_key, max_retries=0
        )
        ...
        assert server.requests[0].body["model"] == "gpt-4o"
    ```

As a pytest fixture (in a `conftest.py`):
    ```python
    @pytest.fixture
    def openai_server():
        with fake_openai_server() as server:
            yield server
    ```
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from jupyter_agents.testing._server_http import FakeHTTPServer, ServerState, select_model_requests
from jupyter_agents.testing._server_replies import (
    DEFAULT_USAGE,
    RecordedRequest,
    Reply,
    ReplyError,
    ReplyHang,
    ReplyItem,
    ReplyOutput,
    ReplyText,
    ReplyToolCall,
    ScriptedReply,
    coerce_reply,
    text_reply,
    tool_call_reply,
)
from jupyter_agents.testing._server_responses import DEFAULT_MODEL

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_USAGE",
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "ReplyError",
    "ReplyHang",
    "ReplyItem",
    "ReplyOutput",
    "ReplyText",
    "ReplyToolCall",
    "ScriptedReply",
    "fake_openai_server",
    "text_reply",
    "tool_call_reply",
]

_STOP_TIMEOUT = 5.0
"""Seconds `stop` waits for each connection thread to finish."""


class FakeOpenAIServer:
    """A local OpenAI-compatible server answering model requests from a reply queue.

    Thread-safe: tests may enqueue replies and read requests while clients talk to it.
    Use it as a context manager, or call `start` and `stop`.

    Model requests (`POST /v1/responses`, `POST /v1/chat/completions`) pop the next
    scripted reply; with none left they get a 500 error saying so. A request whose
    `Authorization` header is not `Bearer <api_key>` gets a 401 and leaves the queue
    alone (unless `require_api_key=False`). Function tools are checked as the API checks
    them (names, parameters rooted at an object, arrays with `items`, strict-mode rules): a bad
    one gets a 400 `invalid_function_parameters` error and leaves the queue alone.
    """

    def __init__(
        self,
        *,
        api_key: str = "test-key",
        require_api_key: bool = True,
        validate_tool_schemas: bool = True,
        player: Callable[[dict[str, str]], ScriptedReply] | None = None,
        responder: Callable[[dict[str, Any]], ScriptedReply] | None = None,
    ) -> None:
        """Create a stopped server.

        Args:
            api_key: The dummy API key clients must send.
            require_api_key: Whether to answer requests without that key with a 401.
            validate_tool_schemas: Whether to refuse tools the real API would refuse.
            player: Answers a model request when no scripted reply is queued, from the
                request's headers (lower-case names), on the server's thread
                (``jupyter_agents.testing.scripted_http`` plays a ScriptedModel this way).
            responder: Answers a model request nothing else answered, from its JSON body.
        """
        self._state = ServerState(api_key, require_api_key)
        self._state.validate_tool_schemas = validate_tool_schemas
        self._state.player = player
        self._state.responder = responder
        self._httpd: FakeHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False

    def __repr__(self) -> str:
        where = self.base_url if self.running else "stopped"
        return f"<FakeOpenAIServer {where}, {self.pending_replies} replies pending>"

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> FakeOpenAIServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread.

        Returns:
            The server itself, for chaining.

        Raises:
            RuntimeError: If the server is running or was stopped; create a new one.
        """
        if self._httpd is not None or self._stopped:
            raise RuntimeError("FakeOpenAIServer can be started once; create a new one.")
        self._httpd = FakeHTTPServer(("127.0.0.1", 0), self._state)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="FakeOpenAIServer",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end open connections (hanging requests included) and join threads.

        Idempotent.
        """
        if self._httpd is None or self._stopped:
            self._stopped = True
            return
        self._stopped = True
        self._state.stopping.set()
        self._httpd.shutdown()
        self._httpd.close_connections(_STOP_TIMEOUT)
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(_STOP_TIMEOUT)

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._httpd is not None and not self._stopped

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started; call start() or use `with`.")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The server root, e.g. `http://127.0.0.1:PORT`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI client `base_url`, e.g. `http://127.0.0.1:PORT/v1`."""
        return f"{self.url}/v1"

    @property
    def api_key(self) -> str:
        """The dummy API key clients must send."""
        return self._state.api_key

    def enqueue(self, *replies: ScriptedReply | ReplyOutput | str) -> None:
        """Append scripted replies, consumed first-in first-out, one per model request.

        Args:
            *replies: `Reply`, `ReplyError` or `ReplyHang` objects; a bare `ReplyText` or
                `ReplyToolCall` becomes a one-output `Reply`, and a `str` a text reply.

        Raises:
            TypeError: If a reply is none of those (nothing is enqueued then).
        """
        coerced = [coerce_reply(reply) for reply in replies]
        with self._state.changed:
            self._state.replies.extend(coerced)

    @property
    def pending_replies(self) -> int:
        """How many scripted replies have not been consumed yet."""
        with self._state.changed:
            return len(self._state.replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._state.changed:
            return list(self._state.requests)

    @property
    def model_requests(self) -> list[RecordedRequest]:
        """A snapshot of the model requests (the ones that consume replies)."""
        return select_model_requests(self.requests)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `count` requests have been received.

        Requests are recorded before they are answered, so this also returns while a
        `ReplyHang` or a delayed reply is still in flight.

        Args:
            count: The number of requests (of any kind) to wait for.
            timeout: Seconds to wait at most.

        Returns:
            A snapshot of all requests received so far.

        Raises:
            TimeoutError: If fewer than `count` requests arrived in time.
        """
        deadline = time.monotonic() + timeout
        with self._state.changed:
            while len(self._state.requests) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    got = len(self._state.requests)
                    raise TimeoutError(
                        f"FakeOpenAIServer received {got} request(s) within {timeout}s, "
                        f"expected {count}; is the client using base_url={self!r}?"
                    )
                self._state.changed.wait(remaining)
            return list(self._state.requests)

    def reset(self) -> None:
        """Drop the pending replies and the recorded requests (for a shared server)."""
        with self._state.changed:
            self._state.replies.clear()
            self._state.requests.clear()


@contextmanager
def fake_openai_server(
    *, allow_unused_replies: bool = False, api_key: str = "test-key"
) -> Iterator[FakeOpenAIServer]:
    """Run a `FakeOpenAIServer` for the duration of a `with` block or a pytest fixture.

    Args:
        allow_unused_replies: Whether scripted replies may remain unconsumed when the
            block exits normally; by default that fails the test.
        api_key: The dummy API key clients must send.

    Yields:
        The started server; it is stopped on exit.

    Raises:
        AssertionError: On a normal exit with replies left, unless allowed.
    """
    with FakeOpenAIServer(api_key=api_key) as server:
        yield server
        left = server.pending_replies
        if left and not allow_unused_replies:
            raise AssertionError(
                f"FakeOpenAIServer: {left} scripted reply(ies) were never requested; "
                "remove them or pass allow_unused_replies=True."
            )
