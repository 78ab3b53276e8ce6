"""The signature a receiver checks, per Standard Webhooks: the spec's own library
(`standardwebhooks`) verifies a delivery; a changed body, id or timestamp, another secret
or an old timestamp fails, with the library and with ours."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from integration.webhooks.signing import (
    HEADER_EVENT,
    HEADER_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    LEGACY_SIGNATURE,
    LEGACY_TIMESTAMP,
    SECRET_PREFIX,
    legacy_signature,
    secret_new,
    signature,
    signature_verify,
    signed_headers,
)

BODY = b'{"event":"run.finished","data":{"simulation":{"id":7}}}'


def library_verifies(secret: str, body: bytes, headers: dict[str, str]) -> bool:
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except WebhookVerificationError:
        return False
    return True


def test_a_delivery_verifies_with_the_standard_library_and_a_tampered_one_does_not() -> None:
    secret = secret_new()
    headers = signed_headers(secret=secret, delivery_id="d-1", event="run.finished", body=BODY)
    assert headers[HEADER_ID] == "d-1" and headers[HEADER_EVENT] == "run.finished"
    assert headers[HEADER_SIGNATURE].startswith("v1,")
    assert library_verifies(secret, BODY, headers)
    assert signature_verify(secret=secret, body=BODY, headers=headers)
    later = str(int(headers[HEADER_TIMESTAMP]) + 1)
    tampered = [
        (secret, BODY[:-1], headers),
        (secret_new(), BODY, headers),
        (secret, BODY, {**headers, HEADER_TIMESTAMP: later}),  # the timestamp is signed
        (secret, BODY, {**headers, HEADER_ID: "d-2"}),  # so is the id
        (secret, BODY, {**headers, HEADER_TIMESTAMP: "soon"}),
    ]
    for key, body, sent in tampered:
        assert not signature_verify(secret=key, body=body, headers=sent)
        with pytest.raises(WebhookVerificationError):
            Webhook(key).verify(body, sent, json_parse=False)


def test_header_names_are_read_in_any_case() -> None:
    secret = secret_new()
    headers = signed_headers(secret=secret, delivery_id="d-9", event="e", body=BODY)
    shouted = {name.upper(): value for name, value in headers.items()}
    assert signature_verify(secret=secret, body=BODY, headers=shouted)
    assert library_verifies(secret, BODY, shouted)


def test_a_replay_outside_the_tolerance_is_refused() -> None:
    secret = secret_new()
    headers = signed_headers(secret=secret, delivery_id="d-1", event="e", body=BODY, now=1e6)

    def verify(now: float) -> bool:
        return signature_verify(secret=secret, body=BODY, headers=headers, now=now)

    assert verify(1_000_000 + 299) and verify(1_000_000 - 299)
    assert not verify(1_000_000 + 301)
    assert not library_verifies(secret, BODY, headers)  # the library's own five minutes


def test_the_signature_is_the_specs_hmac_of_id_timestamp_and_body() -> None:
    key = bytes(range(32))
    secret = SECRET_PREFIX + base64.b64encode(key).decode()
    mac = hmac.new(key, b"msg_7.1700000000." + BODY, hashlib.sha256).digest()
    expected = "v1," + base64.b64encode(mac).decode()
    assert signature(secret=secret, delivery_id="msg_7", timestamp=1_700_000_000, body=BODY) == (
        expected
    )


def test_a_new_secret_is_32_random_bytes_the_library_reads() -> None:
    made = {secret_new() for _ in range(50)}
    assert len(made) == 50
    for secret in made:
        assert secret.startswith(SECRET_PREFIX)
        assert len(base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)) == 32


def test_a_secret_made_before_the_standard_signs_what_the_library_verifies() -> None:
    """Secrets of before were URL-safe base64; wherever the library can read one, the two
    agree on its key. The deprecated headers of before are sent too, as they were."""
    checked = 0
    for _ in range(200):
        old = SECRET_PREFIX + secrets.token_urlsafe(32)
        headers = signed_headers(secret=old, delivery_id="d-3", event="e", body=BODY)
        stamp = int(headers[LEGACY_TIMESTAMP])
        assert headers[LEGACY_SIGNATURE] == legacy_signature(secret=old, timestamp=stamp, body=BODY)
        assert signature_verify(secret=old, body=BODY, headers=headers)
        try:
            reader = Webhook(old)
        except binascii.Error:
            continue  # unreadable to the library: only the deprecated headers serve it
        reader.verify(BODY, headers, json_parse=False)
        checked += 1
    assert checked > 50


def test_the_deprecated_signature_is_the_hmac_of_before() -> None:
    expected = hmac.new(b"whsec_k", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert legacy_signature(secret="whsec_k", timestamp=1_700_000_000, body=BODY) == (
        "v1=" + expected
    )
    assert (
        abs(
            int(
                signed_headers(secret="whsec_k", delivery_id="x", event="e", body=BODY)[
                    HEADER_TIMESTAMP
                ]
            )
            - time.time()
        )
        < 5
    )
