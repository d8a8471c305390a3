"""One bounded HTTP GET for ``web_fetch``: each hop checked, each connection to a checked address.

``fetch_page`` follows at most ``max_redirects`` redirects, each target checked by
``check_url`` again; every connection goes through ``_CheckedBackend``, which looks the name up
once, keeps the addresses ``address_problem`` lets through and connects to one of them, so no
second lookup can answer differently (DNS rebinding). The body is read up to ``max_bytes``
(after decompression), the whole fetch within ``timeout`` seconds. Proxies from the
environment are not used: a proxy would make the checked address meaningless. Built on
``httpcore`` (what ``httpx`` and so ``openai`` use) for its pluggable network backend.
"""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import httpcore

from .rules import Refused, Target, WebRules, address_problem, check_url

__all__ = ["DEFAULT_USER_AGENT", "FetchLimits", "Page", "Resolver", "fetch_page"]

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""``(host, port) -> addresses``: how host names are looked up (default: the system's)."""

DEFAULT_USER_AGENT = "jupyter-agents-web-fetch/1.0 (+https://github.com/jupyter-agents)"
"""What ``web_fetch`` says it is."""

_REDIRECTS = (301, 302, 303, 307, 308)
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class FetchLimits:
    """How much one fetch may cost."""

    max_bytes: int = 2_000_000
    """Bytes of the body read (after decompression); the rest is not read."""
    timeout: float = 20.0
    """Seconds for the whole fetch, redirects included."""
    max_redirects: int = 5
    """Redirects followed; one more is refused."""


@dataclass(frozen=True)
class Page:
    """What a fetch brought back."""

    url: str
    """The address the body came from (after redirects)."""
    redirects: tuple[str, ...]
    """The addresses that redirected, in order."""
    status: int
    """The HTTP status code."""
    reason: str
    """The status's words (``OK``, ``Not Found``)."""
    media_type: str
    """The ``Content-Type`` without parameters, lowercase (empty when the server sent none)."""
    charset: str | None
    """The ``charset`` parameter of the ``Content-Type``, if any."""
    body: bytes
    """The body, decompressed, at most ``max_bytes``."""
    cut: bool
    """The body was longer than ``max_bytes``; only the start was read."""
    ended_early: bool
    """The connection closed before the body the server announced was complete."""


async def _system_resolver(host: str, port: int) -> Sequence[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class _CheckedBackend(httpcore.AsyncNetworkBackend):
    """Connects only to addresses the rules allow, each looked up once."""

    def __init__(self, rules: WebRules, resolver: Resolver) -> None:
        self.rules = rules
        self.resolver = resolver
        self.inner = httpcore.AnyIOBackend()

    async def usable(self, host: str, port: int) -> list[str]:
        """``host``'s addresses the rules allow, or ``Refused`` with why none is."""
        try:
            found = list(dict.fromkeys(await self.resolver(host, port)))
        except OSError as e:
            raise Refused(f"{host} could not be looked up ({e.strerror or e}).") from None
        problems = [address_problem(a, host, self.rules) for a in found]
        usable = [a for a, problem in zip(found, problems, strict=True) if problem is None]
        if not usable:
            raise Refused(next((p for p in problems if p), f"{host} has no address."))
        return usable

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: object = None,
    ) -> httpcore.AsyncNetworkStream:
        failure: Exception | None = None
        for address in await self.usable(host, port):
            try:
                return await self.inner.connect_tcp(address, port, timeout=timeout)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                failure = e
        raise httpcore.ConnectError(f"could not connect to {host}: {failure}")

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: object = None
    ) -> httpcore.AsyncNetworkStream:
        raise Refused("web_fetch connects to network addresses only.")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _Decoder:
    """The body's ``Content-Encoding`` undone, never past ``limit`` bytes in or out."""

    def __init__(self, encoding: str, limit: int) -> None:
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise Refused(f"the page is compressed with {encoding!r}, which web_fetch cannot read.")
        self.limit = limit
        self.encoding = encoding
        self.zlib: Any = None if encoding in ("", "identity") else zlib.decompressobj(47)
        self.out = bytearray()
        self.wire = 0

    def feed(self, chunk: bytes) -> None:
        """Take ``chunk`` off the wire (one byte more than the limit shows that it was cut)."""
        self.wire += len(chunk)
        room = self.limit + 1 - len(self.out)
        if self.zlib is None:
            self.out += chunk[:room]
            return
        try:
            self.out += self.zlib.decompress(chunk, room)
        except zlib.error:
            if self.encoding != "deflate" or self.out:
                raise Refused("the page's compressed body is damaged.") from None
            self.zlib = zlib.decompressobj(-15)  # raw deflate, as some servers send it
            self.out += self.zlib.decompress(chunk, room)

    @property
    def cut(self) -> bool:
        """More body than ``limit``: after decompression, or on the wire."""
        tail = self.zlib is not None and bool(self.zlib.unconsumed_tail)
        return len(self.out) > self.limit or self.wire > self.limit or tail

    @property
    def body(self) -> bytes:
        return bytes(self.out[: self.limit])


def _header(headers: Sequence[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return ""


def _request_headers(target: Target) -> list[tuple[bytes, bytes]]:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = target.port == (443 if target.scheme == "https" else 80)
    return [
        (b"Host", (host if default else f"{host}:{target.port}").encode("ascii")),
        (b"User-Agent", DEFAULT_USER_AGENT.encode()),
        (b"Accept", b"text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.1"),
        (b"Accept-Encoding", b"gzip, deflate"),
    ]


async def _hop(
    pool: httpcore.AsyncConnectionPool, target: Target, limits: FetchLimits
) -> tuple[int, str, list[tuple[bytes, bytes]], _Decoder | None, bool]:
    """One request: status, reason, headers, the decoded body (None for a redirect) and
    whether the body ended early."""
    url = httpcore.URL(
        scheme=target.scheme.encode(),
        host=target.host.encode("ascii"),
        port=target.port,
        target=target.target.encode("ascii"),
    )
    seconds = limits.timeout
    timeouts = {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}
    async with pool.stream(
        "GET", url, headers=_request_headers(target), extensions={"timeout": timeouts}
    ) as response:
        reason = response.extensions.get("reason_phrase", b"")
        reason = reason.decode("latin-1") if isinstance(reason, bytes) else ""
        headers = list(response.headers)
        if response.status in _REDIRECTS and _header(headers, b"location"):
            return response.status, reason, headers, None, False
        decoder = _Decoder(_header(headers, b"content-encoding").lower(), limits.max_bytes)
        try:
            async for chunk in response.aiter_stream():
                decoder.feed(chunk)
                if decoder.cut:
                    break
        except httpcore.RemoteProtocolError:  # fewer bytes than announced, then closed
            return response.status, reason, headers, decoder, True
        return response.status, reason, headers, decoder, False


def _media_type(content_type: str) -> tuple[str, str | None]:
    media = content_type.split(";", 1)[0].strip().lower()
    found = re.search(r";\s*charset\s*=\s*\"?([\w.:-]+)", content_type, re.I)
    return media, (found.group(1) if found else None)


async def _follow(url: str, rules: WebRules, limits: FetchLimits, resolver: Resolver) -> Page:
    target = check_url(url, rules)
    redirects: list[str] = []
    context = ssl.create_default_context()
    backend = _CheckedBackend(rules, resolver)
    async with httpcore.AsyncConnectionPool(
        ssl_context=context, network_backend=backend, max_connections=4
    ) as pool:
        while True:
            status, reason, headers, decoder, ended_early = await _hop(pool, target, limits)
            if decoder is not None:
                media, charset = _media_type(_header(headers, b"content-type"))
                return Page(
                    target.url,
                    tuple(redirects),
                    status,
                    reason,
                    media,
                    charset,
                    decoder.body,
                    decoder.cut,
                    ended_early,
                )
            if len(redirects) >= limits.max_redirects:
                raise Refused(
                    f"{url} redirected more than {limits.max_redirects} times; not followed."
                )
            location = urljoin(target.url, _header(headers, b"location"))
            try:
                next_target = check_url(location, rules)
            except Refused as refused:
                raise Refused(f"{target.url} redirected to a refused address: {refused}") from None
            redirects.append(target.url)
            target = next_target


async def fetch_page(
    url: str,
    rules: WebRules,
    limits: FetchLimits | None = None,
    resolver: Resolver | None = None,
) -> Page:
    """GET ``url`` within ``rules`` and ``limits``.

    Raises:
        Refused: the URL, a redirect or an address is refused, the time ran out, or the
            server could not be reached; the message is the one line the model reads.
    """
    limits = limits or FetchLimits()
    try:
        return await asyncio.wait_for(
            _follow(url, rules, limits, resolver or _system_resolver), limits.timeout
        )
    except (asyncio.TimeoutError, httpcore.TimeoutException):
        raise Refused(f"{url} did not answer within {limits.timeout:g} s.") from None
    except httpcore.ConnectError as e:
        raise Refused(f"{url} could not be reached: {e}.") from None
    except (httpcore.NetworkError, httpcore.ProtocolError) as e:
        raise Refused(f"{url} failed: {type(e).__name__}: {e}.") from None
    except ssl.SSLError as e:
        raise Refused(f"{url}: the secure connection failed ({e.reason or e}).") from None
