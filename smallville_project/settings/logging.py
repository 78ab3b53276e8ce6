"""Logging: every logger to the console, the root at LOG_LEVEL."""

from __future__ import annotations

from smallville_project.environment import env_choice

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "WARNING", choices=_LOG_LEVELS),
    },
}
