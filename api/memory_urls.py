"""Routes of residents' memory streams, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import memory_views

RESIDENT = "simulations/<int:simulation_pk>/residents/<str:resident>"

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        f"{RESIDENT}/memories/",
        memory_views.MemoryListView.as_view(),
        name="memory-list",
    ),
    path(
        f"{RESIDENT}/memories/<int:number>/",
        memory_views.MemoryDetailView.as_view(),
        name="memory-detail",
    ),
    path(
        f"{RESIDENT}/memories/<int:number>/evidence/",
        memory_views.MemoryEvidenceView.as_view(),
        name="memory-evidence",
    ),
    path(
        f"{RESIDENT}/retrieve/",
        memory_views.RetrieveView.as_view(),
        name="memory-retrieve",
    ),
]
