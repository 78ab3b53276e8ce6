"""`manage.py run_simulation --until`: a sim time without a zone is UTC (it crashed before:
naive minus aware)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from agents.services import simulation_create_from_base
from tests.factories import N3
from world.models import Simulation


@pytest.mark.django_db(transaction=True)
def test_until_without_a_zone_runs_to_that_utc_time(user: User) -> None:
    simulation = simulation_create_from_base(
        owner=user, base=N3, config={"cognition": "minimal"}, sec_per_step=60
    )
    at = simulation.start_time.replace(tzinfo=None) + (
        simulation.sim_time_at(7) - simulation.start_time
    )
    call_command("run_simulation", str(simulation.pk), "--until", at.isoformat(), "--inline")
    assert Simulation.objects.get(pk=simulation.pk).step == 7
