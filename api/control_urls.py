"""Routes of the user controls, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import control_views, interview_views
from .memory_urls import RESIDENT

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        f"{RESIDENT}/interview/",
        interview_views.InterviewView.as_view(),
        name="resident-interview",
    ),
    path(
        f"{RESIDENT}/interviews/",
        interview_views.InterviewListView.as_view(),
        name="interview-list",
    ),
    path(f"{RESIDENT}/whisper/", interview_views.WhisperView.as_view(), name="resident-whisper"),
    path(f"{RESIDENT}/control/", control_views.ControlView.as_view(), name="resident-control"),
    path(f"{RESIDENT}/go/", control_views.GoView.as_view(), name="resident-go"),
    path(f"{RESIDENT}/say/", control_views.SayView.as_view(), name="resident-say"),
    path(
        "simulations/<int:simulation_pk>/objects/",
        control_views.ObjectStateView.as_view(),
        name="object-state-list",
    ),
]
