"""Routes of the viewer's reads, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("towns/<int:town_pk>/map/", views.TownMapView.as_view(), name="town-map"),
    path(
        "simulations/<int:simulation_pk>/replay/",
        views.ReplayView.as_view(),
        name="simulation-replay",
    ),
]
