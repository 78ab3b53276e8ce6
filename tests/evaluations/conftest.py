"""A three-resident simulation at step 30 (07:05), not run: what the evaluations read."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.factories import three_residents
from world.models import Simulation


@pytest.fixture
def simulation(user: User) -> Simulation:
    simulation = three_residents(user, 6)
    Simulation.objects.filter(pk=simulation.pk).update(step=30)
    simulation.refresh_from_db()
    return simulation
