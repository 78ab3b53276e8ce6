"""Routes of the user controls, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from ..lookups import RESIDENT_ROUTE
from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{RESIDENT_ROUTE}/control/", views.ControlView.as_view(), name="resident-control"),
    path(f"{RESIDENT_ROUTE}/go/", views.GoView.as_view(), name="resident-go"),
    path(f"{RESIDENT_ROUTE}/say/", views.SayView.as_view(), name="resident-say"),
    path(
        "simulations/<int:simulation_pk>/objects/",
        views.ObjectStateView.as_view(),
        name="object-state-list",
    ),
]
