"""A local fake of Anthropic's Messages API, for models reached through LiteLLM.

`FakeAnthropicServer` is the fake OpenAI server (the same scripted replies, reply queue and
recorded requests) answering ``POST /v1/messages`` the way Anthropic does: a ``Message``, or
its server-sent events (``message_start``, ``content_block_start`` / ``_delta`` (``text_delta``,
``input_json_delta``) / ``_stop``, ``message_delta`` with the usage, ``message_stop``); errors
with Anthropic's error body and ``Retry-After``. It checks the ``x-api-key`` header.

Example:
    ```python
    from jupyter_agents.extensions.models.litellm_model import LitellmModel

    with fake_anthropic_server() as server:
        server.enqueue(tool_call_reply("get_weather", {"city": "Paris"}), "Sunny.")
        model = LitellmModel(
            "anthropic/claude-sonnet-4-5", base_url=server.api_base, api_key=server.api_key
        )
        ...
        assert server.model_requests[0].path == "/v1/messages"
    ```
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .server import FakeOpenAIServer

__all__ = ["FakeAnthropicServer", "fake_anthropic_server"]


class FakeAnthropicServer(FakeOpenAIServer):
    """A local server answering Anthropic's Messages API from scripted replies."""

    def __repr__(self) -> str:
        where = self.api_base if self.running else "stopped"
        return f"<FakeAnthropicServer {where}, {self.pending_replies} replies pending>"

    @property
    def api_base(self) -> str:
        """What LiteLLM's ``api_base`` (``LitellmModel(base_url=...)``) takes: the server root,
        to which LiteLLM adds ``/v1/messages``."""
        return self.url


@contextmanager
def fake_anthropic_server(
    *, allow_unused_replies: bool = False, api_key: str = "test-key"
) -> Iterator[FakeAnthropicServer]:
    """Run a `FakeAnthropicServer` for a `with` block or a pytest fixture.

    Args:
        allow_unused_replies: Whether scripted replies may remain unconsumed when the block
            exits normally; by default that fails the test.
        api_key: The dummy API key clients must send (as ``x-api-key``).

    Yields:
        The started server; it is stopped on exit.
    """
    server = FakeAnthropicServer(api_key=api_key)
    with server:
        yield server
        left = server.pending_replies
        if left and not allow_unused_replies:
            raise AssertionError(
                f"FakeAnthropicServer: {left} scripted reply(ies) were never requested; "
                "remove them or pass allow_unused_replies=True."
            )
