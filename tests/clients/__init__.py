"""Tests of the Python client (clients/python) against the production server; helpers
shared by its test modules."""

from __future__ import annotations

from django.contrib.auth.models import User

from integration.services import api_token_create
from tests.production_server import ProductionServer


def url_of(server: ProductionServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def token_of(user: User, name: str = "client tests") -> str:
    """A key the user made (`sv_...`), as they would on the web face's token page."""
    return api_token_create(user=user, name=name).key
