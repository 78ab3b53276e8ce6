"""Routes of the model-call ledger, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "simulations/<int:simulation_pk>/model-calls/",
        views.ModelCallListView.as_view(),
        name="model-call-list",
    ),
    path(
        "simulations/<int:simulation_pk>/model-calls/summary/",
        views.ModelCallSummaryView.as_view(),
        name="model-call-summary",
    ),
    path(
        "simulations/<int:simulation_pk>/estimate/",
        views.EstimateView.as_view(),
        name="simulation-estimate",
    ),
]
