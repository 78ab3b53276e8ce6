"""Routes of reflection, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import reflection_views
from .memory_urls import RESIDENT

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{RESIDENT}/why/", reflection_views.WhyView.as_view(), name="resident-why"),
]
