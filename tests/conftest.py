"""Shared fixtures. The autouse guard keeps every test off the network (loopback only)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


class NetworkAccessBlocked(RuntimeError):
    """A test tried to leave the machine."""


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(address: Any) -> None:
    if isinstance(address, (str, bytes)):  # unix socket path
        return
    if isinstance(address, tuple) and not _is_local(address[0]):
        raise NetworkAccessBlocked(
            f"test tried to reach {address[0]}:{address[1]}; tests never call real model "
            "services: use ScriptedModel or FakeOpenAIServer"
        )


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    _check(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    _check(address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host):
        raise NetworkAccessBlocked(
            f"test tried to resolve {host!r}; tests never call real model services: use "
            "ScriptedModel or FakeOpenAIServer"
        )
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_DEFAULT_MODEL",
        "JUPYTER_AGENTS_OPENAI_API",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def openai_server() -> Any:
    """A started local OpenAI-compatible server (see jupyter_agents.testing.server)."""
    from jupyter_agents.testing.server import fake_openai_server

    with fake_openai_server() as server:
        yield server
