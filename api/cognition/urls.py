"""Routes of plans and conversations, relative to /api/ (included by api/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import SimpleRouter

from ..lookups import RESIDENT_ROUTE
from . import views

simulation_router = SimpleRouter()
simulation_router.register("conversations", views.ConversationViewSet, basename="conversation")

urlpatterns: list[URLPattern | URLResolver] = [
    path(f"{RESIDENT_ROUTE}/plan/", views.PlanView.as_view(), name="resident-plan"),
    path("simulations/<int:simulation_pk>/", include(simulation_router.urls)),
]
