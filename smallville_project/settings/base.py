"""Django's core: the secret key, hosts, apps, middleware, templates, language and time."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from smallville_project.environment import env_bool, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and env_bool("SMALLVILLE_REQUIRE_SECRET_KEY", False):
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment")
    # A per-checkout development key; production sets SECRET_KEY.
    SECRET_KEY = "dev-only-insecure-" + str(BASE_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # WhiteNoise serves static files under runserver too, as under gunicorn (DEBUG or not).
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from here, not from a CDN
    "world",
    "memories",
    "agents",
    "llm",
    "agents.reflection",
    "runtime",
    "evaluations",
    "experiments",
    "integration",
    "api",
    "web",
]

MIDDLEWARE = [
    # The request's id and span, for its log lines and traces (observability/middleware.py).
    "observability.middleware.RequestContextMiddleware",
    # /healthz and /readyz, before the Host is checked (observability/health.py).
    "observability.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (the admin's, Swagger UI's, the site's) from the app itself, DEBUG or not.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "api.middleware.RequestSizeLimitMiddleware",
    "api.middleware.UnsafeTextMiddleware",
    "api.middleware.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "smallville_project.urls"
WSGI_APPLICATION = "smallville_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "landing"
LOGOUT_REDIRECT_URL = "landing"
