"""Logging: every logger to the console, the root at LOG_LEVEL; SMALLVILLE_LOG_FORMAT
`json` writes one JSON object per line (kernel/logformat.py: time, level, logger,
message, and the request, simulation, resident, step and task where known), `text` (the
default) plain lines. The web's gunicorn and the Celery workers log the same way
(smallville_project/gunicorn_conf.py, celery.py)."""

from __future__ import annotations

import logging
from typing import Any

from smallville_project.environment import env_choice

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
SMALLVILLE_LOG_FORMAT = env_choice("SMALLVILLE_LOG_FORMAT", "text", choices=("text", "json"))
LOG_LEVEL = env_choice("LOG_LEVEL", "WARNING", choices=_LOG_LEVELS)


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    formatters: dict[str, Any] = {"text": {"format": "%(message)s"}}
    formatters["json"] = {"()": "kernel.logformat.JsonFormatter"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters,
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": log_format}},
        "root": {"handlers": ["console"], "level": level},
    }


LOGGING = logging_config(SMALLVILLE_LOG_FORMAT, LOG_LEVEL)
if SMALLVILLE_LOG_FORMAT == "json":
    # Python's warnings too, as lines of the logger "py.warnings", not bare text.
    logging.captureWarnings(True)
