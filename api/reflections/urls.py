"""Routes of reflection, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from ..lookups import RESIDENT_ROUTE
from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{RESIDENT_ROUTE}/why/", views.WhyView.as_view(), name="resident-why"),
]
