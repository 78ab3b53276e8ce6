"""Routes of a simulation's scenarios, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "simulations/<int:simulation_pk>/scenarios/",
        views.ScenarioListView.as_view(),
        name="scenario-list",
    ),
    path(
        "simulations/<int:simulation_pk>/scenarios/<int:number>/",
        views.ScenarioDetailView.as_view(),
        name="scenario-detail",
    ),
]
