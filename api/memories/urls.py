"""Routes of residents' memory streams, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from ..lookups import RESIDENT_ROUTE
from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        f"{RESIDENT_ROUTE}/memories/",
        views.MemoryListView.as_view(),
        name="memory-list",
    ),
    path(
        f"{RESIDENT_ROUTE}/memories/<int:number>/",
        views.MemoryDetailView.as_view(),
        name="memory-detail",
    ),
    path(
        f"{RESIDENT_ROUTE}/memories/<int:number>/evidence/",
        views.MemoryEvidenceView.as_view(),
        name="memory-evidence",
    ),
    path(
        f"{RESIDENT_ROUTE}/retrieve/",
        views.RetrieveView.as_view(),
        name="memory-retrieve",
    ),
]
