"""Pagination: limit/offset for lists; the event log by cursor, in `seq` order, so pages
never shift. Page parameters are whole numbers or a 400 (DRF would quietly ignore a bad
one and use its default, which hides a client's mistake)."""

from __future__ import annotations

import base64
from typing import Any
from urllib import parse

from rest_framework import exceptions
from rest_framework.pagination import Cursor, CursorPagination, LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.views import APIView

MAX_PAGE_SIZE = 1000
MAX_SEQ = 2**63 - 1  # the event log's seq is a bigint


class InvalidCursor(exceptions.ValidationError):
    default_code = "invalid_cursor"


def _cursor_tokens(encoded: str) -> dict[str, str] | None:
    """The parts of a cursor as DRF's encode_cursor writes them (canonical base64 of a query
    string of `o` (a whole offset), `r=1`, `p` (a seq), at least one, each once), or None."""
    try:
        raw = base64.b64decode(encoded.encode("ascii"), validate=True)
        pairs = parse.parse_qsl(raw.decode("ascii"), keep_blank_values=True, strict_parsing=True)
    except ValueError:  # not ASCII, not base64, not a query string
        return None
    tokens = dict(pairs)
    if base64.b64encode(raw).decode("ascii") != encoded or len(tokens) != len(pairs) or not tokens:
        return None
    if not set(tokens) <= {"o", "r", "p"} or tokens.get("r", "1") != "1":
        return None
    for key, most in (("o", CursorPagination.offset_cutoff), ("p", MAX_SEQ)):
        value = tokens.get(key, "1")
        if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= most:
            return None
    return tokens


def _whole(request: Request, name: str, minimum: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or int(raw) < minimum:
        raise exceptions.ValidationError({name: [f"a whole number of at least {minimum}"]})
    return int(raw)


def _with_minimums(
    parameters: list[dict[str, Any]], minimums: dict[str, int]
) -> list[dict[str, Any]]:
    for parameter in parameters:
        if parameter["name"] in minimums:
            parameter["schema"] = {**parameter["schema"], "minimum": minimums[parameter["name"]]}
    return parameters


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_PAGE_SIZE

    def get_limit(self, request: Request) -> int | None:
        limit = _whole(request, self.limit_query_param, minimum=1)
        return self.default_limit if limit is None else min(limit, MAX_PAGE_SIZE)

    def get_offset(self, request: Request) -> int:
        return _whole(request, self.offset_query_param, minimum=0) or 0

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        return _with_minimums(
            super().get_schema_operation_parameters(view),
            {self.limit_query_param: 1, self.offset_query_param: 0},
        )


class EventCursorPagination(CursorPagination):
    ordering = "seq"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request: Request) -> int | None:
        size = _whole(request, "page_size", minimum=1)
        return self.page_size if size is None else min(size, MAX_PAGE_SIZE)

    def decode_cursor(self, request: Request) -> Cursor | None:
        """The cursor, or a 400 naming `cursor` for one this API did not make: DRF reads a
        cursor of no known part (`cursor=`, or base64 of anything) as the first page, and
        answers a 404, or a 500 for a position that is not a seq, for others."""
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is None:
            return None
        tokens = _cursor_tokens(encoded)
        if tokens is None:
            raise InvalidCursor(
                {
                    self.cursor_query_param: [
                        "not a cursor of this list; follow `next` or `previous`"
                    ]
                }
            )
        offset = int(tokens.get("o", "0"))
        position: Any = tokens.get("p")  # a seq, as the query string held it (as DRF)
        return Cursor(offset=offset, reverse="r" in tokens, position=position)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        return _with_minimums(super().get_schema_operation_parameters(view), {"page_size": 1})
