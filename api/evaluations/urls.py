"""Routes of evaluations, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import views

SIMULATION = "simulations/<int:simulation_pk>"

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        f"{SIMULATION}/evaluations/",
        views.EvaluationsView.as_view(),
        name="simulation-evaluations",
    ),
    path(
        f"{SIMULATION}/evaluations/<int:number>/",
        views.EvaluationView.as_view(),
        name="simulation-evaluation",
    ),
    path(
        f"{SIMULATION}/evaluations/<int:number>/report/",
        views.EvaluationReportView.as_view(),
        name="simulation-evaluation-report",
    ),
]
