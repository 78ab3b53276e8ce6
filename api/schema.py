"""OpenAPI helpers: request examples, and the errors every operation of a kind can return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiExample

from .problems import MEDIA_TYPE


def request_example(name: str, value: dict[str, Any]) -> list[OpenApiExample]:
    """One example request body, for an operation's `examples`."""
    return [OpenApiExample(name, value=value, request_only=True)]


# [[x, y], ...]: tiles as coordinates, never as the stored indices.
TILE = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
TILE_LIST = {"type": "array", "items": TILE}

PROBLEM = {"$ref": "#/components/schemas/Problem"}
# status -> (description, whether an operation can return it)
_IMPLIED: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
    "400": (
        "Malformed request (a query parameter or the body is not valid).",
        lambda op: (
            any(p.get("in") == "query" for p in op.get("parameters", [])) or "requestBody" in op
        ),
    ),
    "413": ("The request body is larger than the limit.", lambda op: "requestBody" in op),
    "503": (
        "The database or the cache is down (`database_unavailable`, `cache_unavailable`): "
        "retry after `Retry-After` seconds.",
        lambda op: True,
    ),
}


def document_implied_errors(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Add the 400 a query parameter or body can cause, the 413 of a body over the size
    limit (api.middleware) and the 503 of a backing service that is down to every
    operation that can return them; every error response is a Problem, as
    `application/problem+json` (api.problems). Request bodies take no other keys than
    their fields (api.fields.StrictFieldsMixin): `additionalProperties` false."""
    components = result.get("components", {}).get("schemas", {})
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            for content in operation.get("requestBody", {}).get("content", {}).values():
                ref = content.get("schema", {}).get("$ref", "")
                if ref.rsplit("/", 1)[-1] in components:
                    components[ref.rsplit("/", 1)[-1]]["additionalProperties"] = False
            responses = operation.setdefault("responses", {})
            for status, (description, applies) in _IMPLIED.items():
                if status not in responses and applies(operation):
                    responses[status] = {"description": description}
            for status, response in responses.items():
                if str(status).isdigit() and int(status) >= 400:
                    response["content"] = {MEDIA_TYPE: {"schema": PROBLEM}}
    return result
