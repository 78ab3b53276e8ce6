"""How a delivery is signed, and how a receiver checks it (docs/integration.md).

The signature is HMAC-SHA256, keyed with the subscription's secret, over
`<timestamp>.<body>`: the timestamp (Unix seconds of the attempt) is signed with the body,
so a receiver that refuses old timestamps refuses a replayed delivery."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

SECRET_PREFIX = "whsec_"
HEADER_ID = "Smallville-Webhook-Id"  # the delivery's id: the idempotency key
HEADER_EVENT = "Smallville-Webhook-Event"
HEADER_TIMESTAMP = "Smallville-Webhook-Timestamp"
HEADER_SIGNATURE = "Smallville-Webhook-Signature"
TOLERANCE_SECONDS = 300  # what a receiver should accept between the attempt and its check


def secret_new() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def signed_headers(
    *, secret: str, delivery_id: str, event: str, body: bytes, now: float | None = None
) -> dict[str, str]:
    timestamp = int(time.time() if now is None else now)
    return {
        "Content-Type": "application/json",
        "User-Agent": "Smallville-Webhooks/1",
        HEADER_ID: delivery_id,
        HEADER_EVENT: event,
        HEADER_TIMESTAMP: str(timestamp),
        HEADER_SIGNATURE: signature(secret=secret, timestamp=timestamp, body=body),
    }


def signature_verify(
    *,
    secret: str,
    body: bytes,
    timestamp: str,
    signed: str,
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> bool:
    """What a receiver runs: the signature matches and the timestamp is recent."""
    try:
        at = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - at) > tolerance:
        return False
    expected = signature(secret=secret, timestamp=at, body=body)
    return hmac.compare_digest(expected, signed)
