"""The API: Django REST framework (authentication, throttle rates, parsers) and the
OpenAPI schema (drf-spectacular)."""

from __future__ import annotations

from smallville_project.environment import env_rate

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["api.filters.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # Requests per user on the expensive endpoints (api.throttles): model calls and runs.
    "DEFAULT_THROTTLE_RATES": {
        "run": env_rate("SMALLVILLE_THROTTLE_RUN", "30/minute"),
        "interview": env_rate("SMALLVILLE_THROTTLE_INTERVIEW", "30/minute"),
        "whisper": env_rate("SMALLVILLE_THROTTLE_WHISPER", "30/minute"),
        "say": env_rate("SMALLVILLE_THROTTLE_SAY", "30/minute"),
        # Creating a simulation seeds its memories: ~250 model calls for the n25 base.
        "create": env_rate("SMALLVILLE_THROTTLE_CREATE", "10/minute"),
        "fork": env_rate("SMALLVILLE_THROTTLE_FORK", "10/minute"),
    },
    # JSON with limits on depth, numbers and text (api.parsers); forms checked likewise.
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "api.parsers.FormParser",
        "api.parsers.MultiPartParser",
    ],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Smallville API",
    "DESCRIPTION": "Generative agents (Park et al., UIST 2023) as a service.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Places and memories both have a `kind`: one enum name for each choice set.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.document_implied_errors",
    ],
    "ENUM_NAME_OVERRIDES": {
        "LocationKindEnum": "world.models.LocationKind",
        "MemoryKindEnum": "memories.models.MemoryKind",
        "WebhookEventEnum": "integration.webhooks.models.WebhookEvent",
    },
    # Swagger UI and Redoc from drf-spectacular-sidecar's static files: no CDN, no network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI would ask validator.swagger.io about the schema of any public host.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}
