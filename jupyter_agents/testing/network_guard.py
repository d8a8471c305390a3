"""A network guard for test suites: only loopback connections are allowed.

Use it in a ``conftest.py`` so that no test can reach a real model service::

    @pytest.fixture(autouse=True)
    def _no_network(monkeypatch):
        block_network(monkeypatch)
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

__all__ = ["NetworkAccessBlocked", "block_network"]

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


def block_network(monkeypatch: Any) -> None:
    """Refuse every connection and name lookup that would leave the machine.

    Args:
        monkeypatch: pytest's ``monkeypatch`` fixture (the patches end with the test).
    """
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
