"""web_fetch within the settings' ``web_allowed_domains`` and ``web_denied_domains`` (the
notebook's, or the files'): both deny lists hold, a host must be on both allow lists, a redirect
is checked against them too, and a site's deny list cannot be shortened below its lock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jupyter_agents import web_fetch_tool
from jupyter_agents.runtime.project.settings import Settings, use_settings
from jupyter_agents.runtime.project.settings_keys import KEYS, is_looser

from .test_web_tools import fetch, local_tool
from .web_servers import Reply, WebServer, web_server

__all__ = ["web_server"]


@pytest.fixture
def settings() -> Iterator[Settings]:
    """The settings in force (as a notebook's extension gives them), empty to start."""
    given = Settings()
    use_settings(lambda: given)
    try:
        yield given
    finally:
        use_settings(None)


async def test_the_settings_deny_list_holds(web_server: WebServer, settings: Settings) -> None:
    web_server.routes["/page.txt"] = Reply(b"hello", "text/plain")
    assert (await fetch(local_tool(), web_server.url("/page.txt"))).endswith("hello")
    settings.values["web_denied_domains"] = ("127.0.0.1",)
    out = await fetch(local_tool(), web_server.url("/page.txt"))
    assert out.startswith("Not fetched:") and "hello" not in out


async def test_a_host_must_be_on_both_allow_lists(
    web_server: WebServer, settings: Settings
) -> None:
    web_server.routes["/page.txt"] = Reply(b"hello", "text/plain")
    settings.values["web_allowed_domains"] = ("example.org",)
    out = await fetch(local_tool(allow=["127.0.0.1"]), web_server.url("/page.txt"))
    assert out.startswith("Not fetched:")
    out = await fetch(local_tool(), web_server.url("/page.txt"))  # the tool allows anything
    assert out.startswith("Not fetched:") and "not on the allow list" in out
    settings.values["web_allowed_domains"] = ("example.org", "127.0.0.0/8")
    assert (await fetch(local_tool(allow=["127.0.0.1"]), web_server.url("/page.txt"))).endswith(
        "hello"
    )


async def test_a_redirect_into_a_denied_host_is_refused(
    web_server: WebServer, settings: Settings
) -> None:
    web_server.routes["/go"] = Reply(
        status=302, headers={"Location": web_server.url("/secret.txt", host="localhost")}
    )
    web_server.routes["/secret.txt"] = Reply(b"SECRET", "text/plain")
    settings.values["web_denied_domains"] = ("localhost",)
    tool = web_fetch_tool(allow_private=["127.0.0.1", "localhost"])
    out = await fetch(tool, web_server.url("/go"))
    assert out.startswith("Not fetched:") and "SECRET" not in out
    assert web_server.paths == ["/go"]


def test_a_locked_deny_list_can_grow_but_not_shrink() -> None:
    key = KEYS["web_denied_domains"]
    assert is_looser(key, ("a.com",), ("a.com", "b.com"))
    assert not is_looser(key, ("a.com", "b.com", "c.com"), ("a.com", "b.com"))
    assert is_looser(key, None, ("a.com",))
