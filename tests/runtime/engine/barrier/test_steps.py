"""The barrier engine's fan-out: residents in shards of the configured size, one lease per
shard, and a tick of a run no longer at that step does nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from runtime.dispatch import Work
from runtime.engine.barrier.steps import shard_lease, shards_of, tick_start
from runtime.models import Decision
from tests.factories import unseeded_simulation


def test_residents_go_out_in_shards_of_the_size_in_name_order() -> None:
    names = ["Ada", "Bram", "Cleo", "Dov", "Eli"]
    assert shards_of(names, 2) == [["Ada", "Bram"], ["Cleo", "Dov"], ["Eli"]]
    assert shards_of(names, 5) == [names]
    assert shards_of([], 3) == []


def test_each_shard_of_each_step_has_its_own_lease() -> None:
    key = shard_lease(7, 3, ["Ada", "Bram"])
    assert key == shard_lease(7, 3, ["Ada", "Bram"])  # a redelivery finds the same lease
    assert key.startswith("smallville:lease:shard:7:3:")
    others = {shard_lease(7, 3, ["Cleo"]), shard_lease(7, 4, ["Ada", "Bram"])}
    assert key not in others and len(others) == 2


@pytest.mark.django_db
def test_a_tick_for_a_run_not_running_at_that_step_decides_nothing(
    user: User, monkeypatch: pytest.MonkeyPatch, sent_work: list[Work]
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)  # idle at step 0
    tick_start(simulation_id=simulation.pk, step=0)
    tick_start(simulation_id=simulation.pk, step=0, redelivered=True)
    assert not Decision.objects.filter(simulation=simulation).exists()
    assert sent_work == []
