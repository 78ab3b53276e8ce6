"""ASGI entry point of the production server (gunicorn with uvicorn workers,
smallville_project/gunicorn_conf.py): the WSGI application (smallville_project.wsgi) in a
pool of SMALLVILLE_WEB_THREADS threads, live streams on the event loop
(smallville_project.gateway)."""

from __future__ import annotations

import importlib

from .wsgi import application as wsgi_application

# Imported after the WSGI application has set Django up: the gateway reaches the models.
Gateway = importlib.import_module("smallville_project.gateway").Gateway

application = Gateway(wsgi_application)
