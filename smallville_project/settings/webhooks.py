"""Webhooks (integration/webhooks, docs/integration.md).

A URL on loopback, a private range or this service's own host is refused unless
ALLOW_PRIVATE is on (tests turn it on to reach their receivers). Each attempt may take
TIMEOUT seconds; a failed one is retried after BACKOFF seconds, doubling, at most
BACKOFF_MAX, for RETRY_FOR seconds from the event; a webhook whose last DISABLE_AFTER
deliveries all failed for good is disabled.
"""

from __future__ import annotations

from smallville_project.environment import env_bool, env_float, env_int

SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = env_bool("SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE", False)
SMALLVILLE_WEBHOOKS_TIMEOUT = env_float("SMALLVILLE_WEBHOOKS_TIMEOUT", 10)
SMALLVILLE_WEBHOOKS_BACKOFF = env_float("SMALLVILLE_WEBHOOKS_BACKOFF", 30)
SMALLVILLE_WEBHOOKS_BACKOFF_MAX = env_float("SMALLVILLE_WEBHOOKS_BACKOFF_MAX", 3600)
SMALLVILLE_WEBHOOKS_RETRY_FOR = env_float("SMALLVILLE_WEBHOOKS_RETRY_FOR", 86400)
SMALLVILLE_WEBHOOKS_DISABLE_AFTER = env_int("SMALLVILLE_WEBHOOKS_DISABLE_AFTER", 3)
