"""Routes of the model-call ledger, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import llm_views, profile_views

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "simulations/<int:simulation_pk>/model-calls/",
        llm_views.ModelCallListView.as_view(),
        name="model-call-list",
    ),
    path(
        "simulations/<int:simulation_pk>/model-calls/summary/",
        llm_views.ModelCallSummaryView.as_view(),
        name="model-call-summary",
    ),
    path(
        "simulations/<int:simulation_pk>/estimate/",
        llm_views.EstimateView.as_view(),
        name="simulation-estimate",
    ),
    path(
        "simulations/<int:simulation_pk>/models/",
        profile_views.SimulationModelsView.as_view(),
        name="simulation-models",
    ),
]
