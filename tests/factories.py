"""The simulations and towns the tests build: one place instead of a fixture copied per
directory. Fixtures in conftest.py files stay, but are built from these."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agents import services
from world.models import Simulation

N3 = "base_the_ville_isabella_maria_klaus"
N25 = "base_the_ville_n25"
SEVEN = datetime(2023, 2, 13, 7, tzinfo=UTC)


def simulation_of(
    owner: User,
    base: str = N3,
    *,
    seed: int | None = None,
    start: datetime | None = None,
    **config: Any,
) -> Simulation:
    """A new simulation from a base; the config keys (e.g. cognition="paper") as given."""
    extra: dict[str, Any] = {}
    if seed is not None:
        extra["seed"] = seed
    if start is not None:
        extra["start_time"] = start
    if config:
        extra["config"] = config
    return services.simulation_create_from_base(owner=owner, base=base, **extra)


def unseeded_simulation(owner: User, monkeypatch: pytest.MonkeyPatch, base: str = N3) -> Simulation:
    """A new simulation whose seed statements are not yet rated: no model call yet."""
    with monkeypatch.context() as patch:
        patch.setattr(services, "residents_seed_memories", lambda **kwargs: 0)
        return simulation_of(owner, base)


def three_residents(owner: User, seed: int) -> Simulation:
    """Isabella, Klaus and Maria from 07:00 on Feb 13, with the paper's cognition, not run."""
    return simulation_of(owner, N3, seed=seed, start=SEVEN, cognition="paper")


def api_client_for(user: User) -> APIClient:
    """An API client that sends `user`'s token, as a script would."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
