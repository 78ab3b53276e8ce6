"""Top-level URLs: health, readiness and metrics, the web face, admin, API, OpenAPI schema,
Swagger UI and Redoc."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from observability.health import healthz, readyz
from observability.metrics import metrics
from web.docs import RedocView, SwaggerView

# Under /api/, Django's own 400, 403, 404 and 500 answer as the API's problems too.
handler400 = "api.errors.handler400"
handler403 = "api.errors.handler403"
handler404 = "api.errors.handler404"
handler500 = "api.errors.handler500"

urlpatterns = [
    # For a load balancer or an orchestrator: no authentication (observability/health.py).
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    # Prometheus: a bearer token or an allowed address (observability/metrics.py).
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", RedocView.as_view(url_name="schema"), name="redoc"),
    path("", include("web.urls")),
]
