"""Routes of talking to a resident, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from ..lookups import RESIDENT_ROUTE
from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{RESIDENT_ROUTE}/interview/", views.InterviewView.as_view(), name="resident-interview"),
    path(f"{RESIDENT_ROUTE}/interviews/", views.InterviewListView.as_view(), name="interview-list"),
    path(f"{RESIDENT_ROUTE}/whisper/", views.WhisperView.as_view(), name="resident-whisper"),
]
