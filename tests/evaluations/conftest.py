"""A three-resident simulation at step 30 (07:05), not run: what the evaluations read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from world.models import Simulation

N3 = "base_the_ville_isabella_maria_klaus"


@pytest.fixture
def simulation(user: User) -> Simulation:
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=6,
        start_time=datetime(2023, 2, 13, 7, tzinfo=UTC),
        config={"cognition": "paper"},
    )
    Simulation.objects.filter(pk=simulation.pk).update(step=30)
    simulation.refresh_from_db()
    return simulation
