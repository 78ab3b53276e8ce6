"""The ledger routes alone, under /api/, for tests that must not wait for api/urls.py."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("api/", include("api.ledger.urls")),
    path("api/", include("api.profiles.urls")),
]
