"""How a delivery is signed, and how a receiver checks it (docs/integration.md).

Signed per Standard Webhooks (standardwebhooks.com), so a receiver verifies a delivery
with that spec's library in any language: the headers `webhook-id` (the delivery's id, the
idempotency key), `webhook-timestamp` (Unix seconds of the attempt) and
`webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed
with the secret's bytes (`whsec_` then base64). The timestamp is signed with the body, so
a receiver that refuses old timestamps refuses a replayed delivery.

Header names are case-insensitive (HTTP); they are written here in lower case. The
`smallville-webhook-*` headers of before (HMAC over `<timestamp>.<body>` keyed with the
secret's text, hex) are still sent beside them, deprecated: receivers written for them keep
working until they move to the standard ones."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time

SECRET_PREFIX = "whsec_"
HEADER_ID = "webhook-id"  # the delivery's id: the idempotency key
HEADER_TIMESTAMP = "webhook-timestamp"
HEADER_SIGNATURE = "webhook-signature"
HEADER_EVENT = "smallville-webhook-event"
# Deprecated: the signature of before, for receivers not yet on the standard headers.
LEGACY_ID = "smallville-webhook-id"
LEGACY_TIMESTAMP = "smallville-webhook-timestamp"
LEGACY_SIGNATURE = "smallville-webhook-signature"
TOLERANCE_SECONDS = 300  # what a receiver should accept between the attempt and its check


def secret_new() -> str:
    """`whsec_` and 32 random bytes in standard base64, as the spec's libraries read it."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def signing_key(secret: str) -> bytes:
    """The key a secret stands for, read as the spec's libraries read it (the base64 after
    `whsec_`; padding added, other characters skipped), so that a secret made before the
    standard (URL-safe base64) signs what those libraries verify wherever they can read it."""
    body = secret.removeprefix(SECRET_PREFIX)
    try:
        return base64.b64decode(body + "==")
    except (binascii.Error, ValueError):
        return body.encode()  # unreadable to the libraries: the deprecated headers remain


def signature(*, secret: str, delivery_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    mac = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def legacy_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def signed_headers(
    *, secret: str, delivery_id: str, event: str, body: bytes, now: float | None = None
) -> dict[str, str]:
    timestamp = int(time.time() if now is None else now)
    return {
        "content-type": "application/json",
        "user-agent": "Smallville-Webhooks/1",
        HEADER_ID: delivery_id,
        HEADER_TIMESTAMP: str(timestamp),
        HEADER_SIGNATURE: signature(
            secret=secret, delivery_id=delivery_id, timestamp=timestamp, body=body
        ),
        HEADER_EVENT: event,
        LEGACY_ID: delivery_id,
        LEGACY_TIMESTAMP: str(timestamp),
        LEGACY_SIGNATURE: legacy_signature(secret=secret, timestamp=timestamp, body=body),
    }


def signature_verify(
    *,
    secret: str,
    body: bytes,
    headers: dict[str, str],
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> bool:
    """What a receiver runs (the spec's libraries do the same): a signature in
    `webhook-signature` (space-separated, any may match) is the delivery's and the
    timestamp is recent."""
    found = {name.lower(): value for name, value in headers.items()}
    delivery_id = found.get(HEADER_ID)
    stamp = found.get(HEADER_TIMESTAMP, "")
    signed = found.get(HEADER_SIGNATURE, "")
    if not delivery_id or not stamp.isdigit():
        return False
    at = int(stamp)
    if abs((time.time() if now is None else now) - at) > tolerance:
        return False
    expected = signature(secret=secret, delivery_id=delivery_id, timestamp=at, body=body)
    return any(hmac.compare_digest(expected, given) for given in signed.split(" "))
