"""Routes of named facts, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

SIMULATION = "simulations/<int:simulation_pk>"

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{SIMULATION}/facts/", views.FactsView.as_view(), name="simulation-facts"),
    path(
        f"{SIMULATION}/facts/holders/",
        views.FactHoldersView.as_view(),
        name="simulation-fact-holders",
    ),
]
