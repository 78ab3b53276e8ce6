"""Routes of a simulation's model routes, relative to /api/ (included by api/urls.py; the
profiles themselves are a collection of the router)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "simulations/<int:simulation_pk>/models/",
        views.SimulationModelsView.as_view(),
        name="simulation-models",
    ),
]
