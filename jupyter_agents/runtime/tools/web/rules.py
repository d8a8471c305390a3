"""Which URLs and addresses the web tools may reach: pure functions, no I/O.

The order of the checks is the security argument, so it reads top to bottom:

``check_url`` (the URL the model gave, and each redirect's target):

1. it parses: ``http`` or ``https``, a host, no user name or password, no control characters,
   a host in a form we read (a name of letters, digits and hyphens, or an address in its
   usual form: ``127.1`` and ``2130706433`` are refused, not guessed at);
2. the host is not on the deny list (deny wins);
3. when there is an allow list, the host is on it;
4. an address written as the host, and ``localhost``, are named by an allow list.

``address_problem`` (every address a host name resolves to, before connecting to it):

1. the address is not in a denied network;
2. an address that is not public (loopback, private, link-local, unspecified, multicast,
   reserved, shared, and their IPv4-mapped IPv6 forms) is named by ``allow_private`` (or by
   ``allow``, as an address or network), or its host name is.

A name entry covers the name and its subdomains (``example.com`` covers ``docs.example.com``);
an address entry covers that address, a network entry (``10.0.0.0/8``) every address in it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from ...errors import UserError

__all__ = ["Refused", "Target", "WebRules", "address_problem", "check_url", "narrowed"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PATH_SAFE = "/%:@!$&'()*+,;=-._~?#[]"


class Refused(Exception):
    """A request the web tools will not make; its message is the one line the model reads."""


@dataclass(frozen=True)
class Target:
    """A URL that passed ``check_url``, in the parts a connection is made of."""

    url: str
    """The URL as requested (the host in its ASCII form, no fragment)."""
    scheme: str
    """``http`` or ``https``."""
    host: str
    """The host name (lowercase ASCII, no trailing dot) or the address (no brackets)."""
    port: int
    """The port (the scheme's default when the URL names none)."""
    target: str
    """The path and query, as sent in the request line."""
    is_address: bool
    """The host is an address, not a name."""


@dataclass(frozen=True)
class _Entries:
    names: tuple[str, ...] = ()
    networks: tuple[Network, ...] = ()

    def has_name(self, host: str) -> bool:
        return any(host == name or host.endswith("." + name) for name in self.names)

    def has_address(self, address: Address) -> bool:
        return any(address.version == net.version and address in net for net in self.networks)

    def within(self, other: _Entries) -> _Entries:
        """The entries of these that ``other`` covers too (a name, or a network inside one)."""
        return _Entries(
            tuple(n for n in self.names if other.has_name(n)),
            tuple(
                net
                for net in self.networks
                if any(net.version == o.version and net.subnet_of(o) for o in other.networks)  # type: ignore[arg-type]
            ),
        )

    def empty(self) -> bool:
        return not (self.names or self.networks)

    def shown(self) -> str:
        every = [*self.names, *(str(net) for net in self.networks)]
        return ", ".join(every[:8]) + (f" and {len(every) - 8} more" if len(every) > 8 else "")


@dataclass(frozen=True)
class WebRules:
    """Where the web tools may go; build it with ``WebRules.of``."""

    allow: _Entries = _Entries()
    """When it has entries, the only hosts a URL may name."""
    deny: _Entries = _Entries()
    """Hosts and addresses never reached (deny wins over both allow lists)."""
    allow_private: _Entries = _Entries()
    """Names, addresses and networks that may be reached although their addresses are not
    public (a local SearXNG, an intranet)."""

    @classmethod
    def of(
        cls,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        allow_private: Iterable[str] = (),
        *,
        where: str = "web_fetch_tool",
    ) -> WebRules:
        """Rules from lists of names (``example.com``), addresses (``127.0.0.1``, ``::1``)
        and networks (``10.0.0.0/8``).

        Raises:
            UserError: an entry is none of these (a URL, say), with what to write instead.
        """
        return cls(
            _entries(allow, "allow", where),
            _entries(deny, "deny", where),
            _entries(allow_private, "allow_private", where),
        )


def narrowed(rules: WebRules, allow: Iterable[str] | None, deny: Iterable[str] | None) -> WebRules:
    """``rules`` kept within the settings' lists (``web_allowed_domains``,
    ``web_denied_domains``): both deny lists hold, and a host must be on both allow lists when
    both have one. A tool allowed nothing the settings allow is allowed nothing (a deny of
    every address)."""
    where = "settings"
    extra_deny = _entries(list(deny or ()), "web_denied_domains", where)
    combined_deny = _Entries(
        rules.deny.names + extra_deny.names, rules.deny.networks + extra_deny.networks
    )
    allow_list = _entries(list(allow or ()), "web_allowed_domains", where)
    if allow is None or allow_list.empty():
        kept = rules.allow
    elif rules.allow.empty():
        kept = allow_list
    else:
        kept = rules.allow.within(allow_list)
        if kept.empty():
            every = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))
            combined_deny = _Entries(combined_deny.names, combined_deny.networks + every)
            kept = rules.allow
    return WebRules(kept, combined_deny, rules.allow_private)


def _entries(values: Iterable[str], field: str, where: str) -> _Entries:
    if isinstance(values, str):
        raise UserError(f"{where}: {field} must be a list of names, got the string {values!r}.")
    names: list[str] = []
    networks: list[Network] = []
    for value in values:
        entry = str(value).strip().lower().removeprefix("*.").strip(".")
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            continue
        except ValueError:
            pass
        name = _ascii_name(entry)
        if name is None:
            raise UserError(
                f"{where}: {field} entry {value!r} is not a host name, an address or a "
                "network; write a name like 'example.com' (it covers its subdomains), an "
                "address like '127.0.0.1' or a network like '10.0.0.0/8'."
            )
        names.append(name)
    return _Entries(tuple(names), tuple(networks))


def _ascii_name(host: str) -> str | None:
    """``host`` as a lowercase ASCII host name, or None when it is not one."""
    try:
        name = host.encode("idna").decode("ascii").lower() if not host.isascii() else host
    except UnicodeError:
        return None
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        return None
    return name


def _parse(url: str) -> Target:
    """``url`` in its parts, or ``Refused`` saying what is wrong with it."""
    if _CONTROL.search(url.strip()):
        raise Refused(f"{url[:200]!r} has control characters; give a plain URL.")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise Refused(f"{url[:200]!r} is not a URL web_fetch can read ({e}).") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise Refused(f"{url[:200]!r}: only http and https URLs can be fetched.")
    if "@" in parts.netloc:
        raise Refused(f"{url[:200]!r}: URLs with a user name or password are refused.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise Refused(f"{url[:200]!r} names no host.")
    address = _address(host)
    name = None if address is not None else _ascii_name(host)
    if address is None and name is None:
        raise Refused(f"{url[:200]!r}: {host[:100]!r} is not a host name web_fetch can read.")
    if name is not None and (name.split(".")[-1].isdigit() or name.split(".")[-1][:2] == "0x"):
        raise Refused(
            f"{url[:200]!r}: {host!r} looks like an address in a form web_fetch does not "
            "read; write an address as four dotted numbers (or an IPv6 address in brackets)."
        )
    host = str(address) if address is not None else str(name)
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    target = path + (f"?{quote(parts.query, safe=_PATH_SAFE)}" if parts.query else "")
    port = port if port is not None else (443 if scheme == "https" else 80)
    shown = f"[{host}]" if address is not None and address.version == 6 else host
    default = (scheme == "https" and port == 443) or (scheme == "http" and port == 80)
    netloc = shown if default else f"{shown}:{port}"
    return Target(f"{scheme}://{netloc}{target}", scheme, host, port, target, address is not None)


def _address(host: str) -> Address | None:
    """The address ``host`` spells in its usual form (a zone id is not one), else None."""
    if "%" in host:
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_localhost(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


def check_url(url: str, rules: WebRules) -> Target:
    """The parts of ``url`` when the rules let the web tools request it.

    Raises:
        Refused: the one line that says why not (see the module docstring for the order).
    """
    found = _parse(url)
    host, address = found.host, _address(found.host) if found.is_address else None
    if rules.deny.has_name(host) or (address is not None and rules.deny.has_address(address)):
        raise Refused(f"{found.url}: {host} is on the deny list.")
    allowed = rules.allow.names or rules.allow.networks
    if allowed and not (
        rules.allow.has_name(host) or (address is not None and rules.allow.has_address(address))
    ):
        raise Refused(
            f"{found.url}: {host} is not on the allow list (allowed: {rules.allow.shown()})."
        )
    if address is not None and not (
        rules.allow.has_address(address) or rules.allow_private.has_address(address)
    ):
        raise Refused(
            f"{found.url}: an address as the host is refused unless it is allowed; use the "
            "site's name."
        )
    if _is_localhost(host) and not (
        rules.allow.has_name(host) or rules.allow_private.has_name(host)
    ):
        raise Refused(f"{found.url}: localhost is refused unless it is allowed.")
    return found


def _public(address: Address) -> bool:
    """Whether ``address`` is an ordinary address on the internet (the IPv4 one inside an
    IPv4-mapped or 6to4 IPv6 address is what is judged)."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is not None:
            return _public(inner)
    return address.is_global and not address.is_multicast


def address_problem(address: str, host: str, rules: WebRules) -> str | None:
    """Why the web tools may not connect to ``address`` (one of ``host``'s addresses), or
    None when they may."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return f"{host} resolved to {address!r}, which is not an address."
    if rules.deny.has_address(ip):
        return f"{host} resolves to {ip}, which is on the deny list."
    if _public(ip):
        return None
    if (
        rules.allow_private.has_address(ip)
        or rules.allow.has_address(ip)
        or rules.allow_private.has_name(host)
        or (_is_localhost(host) and rules.allow.has_name(host))
    ):
        return None
    return (
        f"{host} resolves to {ip}, a loopback, private or otherwise local address; it is "
        "refused unless allowed (allow_private)."
    )
