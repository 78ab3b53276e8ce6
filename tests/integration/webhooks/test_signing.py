"""The signature a receiver checks: HMAC-SHA256 over timestamp and body with the secret;
a changed body, another secret or an old timestamp fails."""

from __future__ import annotations

from integration.webhooks.signing import (
    HEADER_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    secret_new,
    signature,
    signature_verify,
    signed_headers,
)

BODY = b'{"event":"run.finished","data":{"simulation":{"id":7}}}'


def test_a_signed_delivery_verifies_and_a_tampered_one_does_not() -> None:
    secret = secret_new()
    headers = signed_headers(secret=secret, delivery_id="d-1", event="run.finished", body=BODY)
    stamp, signed = headers[HEADER_TIMESTAMP], headers[HEADER_SIGNATURE]
    assert headers[HEADER_ID] == "d-1" and signed.startswith("v1=")
    assert signature_verify(secret=secret, body=BODY, timestamp=stamp, signed=signed)
    assert not signature_verify(secret=secret, body=BODY[:-1], timestamp=stamp, signed=signed)
    assert not signature_verify(secret=secret_new(), body=BODY, timestamp=stamp, signed=signed)
    later = str(int(stamp) + 1)  # the timestamp is signed too
    assert not signature_verify(secret=secret, body=BODY, timestamp=later, signed=signed)
    assert not signature_verify(secret=secret, body=BODY, timestamp="soon", signed=signed)


def test_a_replay_outside_the_tolerance_is_refused() -> None:
    secret = secret_new()
    signed = signature(secret=secret, timestamp=1_000_000, body=BODY)

    def verify(now: float) -> bool:
        return signature_verify(
            secret=secret, body=BODY, timestamp="1000000", signed=signed, now=now
        )

    assert verify(1_000_000 + 299)
    assert not verify(1_000_000 + 301)


def test_the_signature_is_the_documented_hmac() -> None:
    import hashlib
    import hmac

    expected = hmac.new(b"whsec_k", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert signature(secret="whsec_k", timestamp=1_700_000_000, body=BODY) == "v1=" + expected
