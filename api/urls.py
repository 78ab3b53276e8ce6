"""API routes under /api/: towns and their places, simulations, residents and events."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import DefaultRouter, SimpleRouter

from . import (
    base_views,
    experiment_views,
    profile_views,
    resident_views,
    simulation_views,
    stream_views,
    token_views,
    town_views,
    webhook_views,
)


class _Router(DefaultRouter):
    """The top-level collections, with the root of the API at /api/ (the browsable
    API's front page, linking each); no `.json` suffixes beside the routes."""

    include_format_suffixes = False


router = _Router()
router.register("bases", base_views.BaseViewSet, basename="base")
router.register("towns", town_views.TownViewSet, basename="town")
router.register("simulations", simulation_views.SimulationViewSet, basename="simulation")
router.register("tokens", token_views.ApiTokenViewSet, basename="token")
router.register("webhooks", webhook_views.WebhookViewSet, basename="webhook")
router.register("profiles", profile_views.ModelProfileViewSet, basename="profile")
router.register("experiments", experiment_views.ExperimentViewSet, basename="experiment")

town_router = SimpleRouter()
town_router.register("locations", town_views.LocationViewSet, basename="location")

simulation_router = SimpleRouter()
simulation_router.register("residents", resident_views.ResidentViewSet, basename="resident")
simulation_router.register("events", simulation_views.EventViewSet, basename="event")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include(router.urls)),
    path("towns/<int:town_pk>/", include(town_router.urls)),
    path("simulations/<int:simulation_pk>/", include(simulation_router.urls)),
    path(
        "simulations/<int:simulation_pk>/stream/",
        stream_views.SimulationStreamView.as_view(),
        name="simulation-stream",
    ),
    path("", include("api.llm_urls")),
    path("", include("api.memory_urls")),
    path("", include("api.reflection_urls")),
    path("", include("api.control_urls")),
    path("", include("api.cognition_urls")),
    path("", include("api.evaluation_urls")),
    path("", include("api.fact_urls")),
    path("", include("api.replay_urls")),
    path("", include("api.scenario_urls")),
]
