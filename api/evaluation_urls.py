"""Routes of evaluations, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import evaluation_views

SIMULATION = "simulations/<int:simulation_pk>"

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        f"{SIMULATION}/evaluations/",
        evaluation_views.EvaluationsView.as_view(),
        name="simulation-evaluations",
    ),
    path(
        f"{SIMULATION}/evaluations/<int:number>/",
        evaluation_views.EvaluationView.as_view(),
        name="simulation-evaluation",
    ),
    path(
        f"{SIMULATION}/evaluations/<int:number>/report/",
        evaluation_views.EvaluationReportView.as_view(),
        name="simulation-evaluation-report",
    ),
]
