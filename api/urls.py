"""API routes under /api/: the router's root and collections, and each feature's routes
(api/<feature>/urls.py) in turn."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import DefaultRouter, SimpleRouter

from .bases.views import BaseViewSet
from .experiments.views import ExperimentViewSet
from .profiles.views import ModelProfileViewSet
from .residents.views import ResidentViewSet
from .simulations.views import EventViewSet, SimulationViewSet
from .streams.views import SimulationStreamView
from .tokens.views import ApiTokenViewSet
from .towns.views import LocationViewSet, TownViewSet
from .webhooks.views import WebhookViewSet


class _Router(DefaultRouter):
    """The top-level collections, with the root of the API at /api/ (the browsable
    API's front page, linking each); no `.json` suffixes beside the routes."""

    include_format_suffixes = False


router = _Router()
router.register("bases", BaseViewSet, basename="base")
router.register("towns", TownViewSet, basename="town")
router.register("simulations", SimulationViewSet, basename="simulation")
router.register("tokens", ApiTokenViewSet, basename="token")
router.register("webhooks", WebhookViewSet, basename="webhook")
router.register("profiles", ModelProfileViewSet, basename="profile")
router.register("experiments", ExperimentViewSet, basename="experiment")

town_router = SimpleRouter()
town_router.register("locations", LocationViewSet, basename="location")

simulation_router = SimpleRouter()
simulation_router.register("residents", ResidentViewSet, basename="resident")
simulation_router.register("events", EventViewSet, basename="event")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include(router.urls)),
    path("towns/<int:town_pk>/", include(town_router.urls)),
    path("simulations/<int:simulation_pk>/", include(simulation_router.urls)),
    path(
        "simulations/<int:simulation_pk>/stream/",
        SimulationStreamView.as_view(),
        name="simulation-stream",
    ),
    path("", include("api.ledger.urls")),
    path("", include("api.profiles.urls")),
    path("", include("api.memories.urls")),
    path("", include("api.reflections.urls")),
    path("", include("api.interviews.urls")),
    path("", include("api.controls.urls")),
    path("", include("api.cognition.urls")),
    path("", include("api.evaluations.urls")),
    path("", include("api.facts.urls")),
    path("", include("api.replay.urls")),
    path("", include("api.scenarios.urls")),
    path("", include("api.play.urls")),
]
