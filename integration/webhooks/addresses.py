"""Which URLs a webhook may call: http(s) on a public address, never this service's own
host, loopback or a private range, unless the operator allows them
(SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE). Checked when a URL is given and again before each
attempt, since what a name resolves to can change."""

from __future__ import annotations

import ipaddress
import socket
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings


class UrlRefused(ValueError):
    """The URL may not be called; the message says why."""


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def url_check(url: str) -> None:
    """Raise UrlRefused unless a delivery may be sent to `url`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused(f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("an http or https URL")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise UrlRefused("a URL with a host")
    if parts.username or parts.password:
        raise UrlRefused("no user name or password in the URL")
    if settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE:
        return
    if _names_this_service(host):
        raise UrlRefused(f"{host} is this service's own host")
    for address in _resolve(host, port or (443 if parts.scheme == "https" else 80)):
        if not _public(address):
            raise UrlRefused(f"{host} resolves to {address}, a private or reserved address")
        if address in _own_addresses():
            raise UrlRefused(f"{host} resolves to {address}, this service's own address")


def _names_this_service(host: str) -> bool:
    for allowed in settings.ALLOWED_HOSTS:
        allowed = allowed.lower()
        if allowed == "*":
            continue
        if host == allowed or (allowed.startswith(".") and host.endswith(allowed)):
            return True
    return host in ("localhost", socket.gethostname().lower())


def _resolve(host: str, port: int) -> list[Address]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UrlRefused(f"{host} does not resolve: {exc}") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in found]


def _public(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@cache
def _own_addresses() -> frozenset[Address]:
    """The addresses this machine's name resolves to (its public one among them)."""
    try:
        return frozenset(_resolve(socket.gethostname(), 80))
    except UrlRefused:
        return frozenset()
