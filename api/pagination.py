"""Pagination: the event log is read by cursor, in `seq` order, so pages never shift."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination


class EventCursorPagination(CursorPagination):
    ordering = "seq"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
