"""The API's documentation pages (Swagger UI, Redoc), kept to files of this server's."""

from __future__ import annotations

from typing import Any

from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

# The browser refuses anything from another origin: Redoc's bundle shows Redocly's logo
# from cdn.redoc.ly, and no setting turns that off. The inline scripts and styles are the
# bundles' own (drf-spectacular's init script, Redoc's styled components); blob: is
# Redoc's search worker.
SAME_ORIGIN_ONLY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'"
)


class _SameOriginOnly(APIView):
    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Content-Security-Policy"] = SAME_ORIGIN_ONLY
        return response


class SwaggerView(_SameOriginOnly, SpectacularSwaggerView):
    """Swagger UI from drf-spectacular-sidecar's files (/api/docs/)."""


class RedocView(_SameOriginOnly, SpectacularRedocView):
    """Redoc from drf-spectacular-sidecar's files, without Google Fonts (/api/redoc/)."""

    template_name = "web/redoc.html"
