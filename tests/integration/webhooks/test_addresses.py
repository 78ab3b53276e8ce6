"""Which URLs a webhook may call: public http(s) only, unless the operator allows private
ones; checked before each attempt too."""

from __future__ import annotations

from typing import Any

import pytest

from integration.webhooks.addresses import UrlRefused, url_check


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://10.0.0.8/h", "private"),
        ("http://100.64.0.1/h", "private"),  # carrier-grade NAT
        ("http://[fd00::1]/h", "private"),
        ("http://[fe80::1]/h", "private"),
        ("http://224.0.0.1/h", "private"),
        ("http://localhost:8000/h", "own host"),
        ("file:///etc/passwd", "http or https"),
        ("http:///nohost", "with a host"),
        ("http://127.0.0.1:notaport/h", "not a URL"),
        ("http://no-such-host.invalid/h", "does not resolve"),
    ],
)
def test_refused_urls_say_why(url: str, why: str) -> None:
    with pytest.raises(UrlRefused, match=why):
        url_check(url)


def test_a_public_address_is_allowed() -> None:
    url_check("https://93.184.215.14:8443/hooks")  # a literal address: no DNS needed


def test_the_operator_may_allow_private_addresses(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True
    url_check("http://127.0.0.1:9/h")
    with pytest.raises(UrlRefused, match="http or https"):
        url_check("gopher://127.0.0.1/h")
