"""The request body limit of a route: DATA_UPLOAD_MAX_MEMORY_SIZE, but a town file (a map
of up to 200x200 tiles in five layers and its art) may be larger. One rule for the ASGI
gateway, the chunked-body reader and the API's size middleware."""

from __future__ import annotations

from django.conf import settings

# Routes that take larger bodies: (method, path) -> the setting naming their limit.
_LARGER = {("POST", "/api/towns/"): "SMALLVILLE_MAX_TOWN_BYTES"}


def body_limit(method: str, path: str) -> int | None:
    """The largest body a request to `path` may carry, in bytes (None: no limit)."""
    setting = _LARGER.get((method.upper(), path))
    if setting is not None:
        return int(getattr(settings, setting))
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit
