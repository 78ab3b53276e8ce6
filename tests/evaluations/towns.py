"""The town the evaluation tests read: Isabella, Klaus and Maria from 07:00 on Feb 13, with
the paper's cognition, not run."""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from world.models import Simulation

N3 = "base_the_ville_isabella_maria_klaus"


def three_residents(owner: User, seed: int) -> Simulation:
    return simulation_create_from_base(
        owner=owner,
        base=N3,
        seed=seed,
        start_time=datetime(2023, 2, 13, 7, tzinfo=UTC),
        config={"cognition": "paper"},
    )
