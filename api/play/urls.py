"""Routes of playing in the town, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from ..lookups import RESIDENT_ROUTE
from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("simulations/<int:simulation_pk>/share/", views.ShareView.as_view(), name="share"),
    path("simulations/<int:simulation_pk>/players/", views.PlayersView.as_view(), name="players"),
    path(
        "simulations/<int:simulation_pk>/players/<str:resident>/",
        views.PlayerView.as_view(),
        name="player",
    ),
    path(f"{RESIDENT_ROUTE}/sight/", views.SightView.as_view(), name="resident-sight"),
]
