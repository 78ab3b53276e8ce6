"""Housemates in one bedroom with a bed each ("bed", "second bed"): each sleeps in a bed
of its own, none waits all night by the one the other sleeps in. A generated town (no
file's), made and run through the services a user's REST calls use."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User

from agents.bases.services import base_create
from agents.services import simulation_create_from_base
from bench.generality.world import world_make
from runtime.engine import simulation_run_inline
from world.models import Event
from world.townbuild import town_create


@pytest.mark.django_db(transaction=True)
def test_housemates_sleep_each_in_a_bed_of_their_own(user: User) -> None:
    world = world_make(6)  # two homes of two residents each
    shared = {home for home, n in Counter(p.home.sector for p in world.people).items() if n > 1}
    assert len(shared) == 2
    town_create(owner=user, data=world.town)
    base = base_create(owner=user, data={**world.base(owner_tag=""), "town": world.name})
    simulation = simulation_create_from_base(
        owner=user, base=base.pk, seed=world.seed, sec_per_step=60,
        config={"cognition": "paper"},
    )  # fmt: skip
    simulation = simulation_run_inline(simulation=simulation, steps=20)
    assert simulation.step == 20, simulation.status_reason
    acting = Event.objects.filter(simulation=simulation, kind="agent.acting")
    # One may find the bed taken when both head for it at once: it waits a minute, then
    # takes the other.
    waits = Counter(
        acting.filter(payload__action__startswith="waiting to use").values_list("agent", flat=True)
    )
    assert all(n <= 1 for n in waits.values()), waits
    slept: dict[str, str] = {}  # resident -> the bed it sleeps in last
    for event in acting.filter(payload__action="sleeping").order_by("seq"):
        slept[event.agent] = event.payload["address"]
    for home in shared:
        beds = [slept.get(p.name) for p in world.people if p.home.sector == home]
        assert None not in beds and beds[0] != beds[1], (home, slept)
