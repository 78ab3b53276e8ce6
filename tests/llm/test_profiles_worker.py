"""Two simulations on two model profiles, each pointing at its own real server, run at
the same time on one real Celery worker: each calls only its own server, and a route
sends one simulation's ratings to a third."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db.models import Max, Min, Sum
from rest_framework.test import APIClient

from agents.services import simulation_create_from_base
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from runtime import engine
from world.models import Simulation, SimulationStatus

from ..runtime.workers import celery_worker, wait_for

TOWN = "base_the_ville_isabella_maria_klaus"


def _profile(api: APIClient, server: PolicyServer, name: str) -> int:
    body = {"name": name, "base_url": server.base_url, "model": name, "send_task": True}
    made = api.post("/api/profiles/", body, format="json")
    assert made.status_code == 201, made.json()
    return int(made.json()["id"])


def _simulation(user: User, seed: int) -> Simulation:
    return simulation_create_from_base(
        owner=user,
        base=TOWN,
        seed=seed,
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
        config={"cognition": "paper", "importance_delay": 0},
    )


def _asked(simulation: Simulation, profile: int) -> int:
    rows = ModelCall.objects.filter(simulation=simulation, profile_id=profile)
    return int(rows.aggregate(n=Sum("attempts"))["n"] or 0)


@pytest.mark.django_db(transaction=True)
def test_two_simulations_on_two_profiles_call_only_their_own_servers(
    user: User, api: APIClient
) -> None:
    first, second = _simulation(user, 11), _simulation(user, 12)
    seeded = ModelCall.objects.count()  # the seed ratings, made offline before any route
    with PolicyServer() as one, PolicyServer() as two, PolicyServer() as rater:
        p_one, p_two, p_rater = (
            _profile(api, s, n) for s, n in ((one, "one"), (two, "two"), (rater, "rater"))
        )
        for simulation, routes in (
            (first, {"residents": p_one, "ratings": p_rater}),
            (second, {"residents": p_two}),
        ):
            routed = api.put(
                f"/api/simulations/{simulation.pk}/models/", {"routes": routes}, format="json"
            )
            assert routed.status_code == 200, routed.json()
        with celery_worker():  # its own settings: the offline backend
            engine.simulation_run(simulation=first, steps=2)
            engine.simulation_run(simulation=second, steps=2)
            wait_for(
                lambda: (
                    not Simulation.objects.filter(
                        pk__in=[first.pk, second.pk], status=SimulationStatus.RUNNING
                    ).exists()
                ),
                timeout=300,
                what="both runs",
            )
    for simulation in (first, second):
        simulation.refresh_from_db()
        assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    made = ModelCall.objects.order_by("id")[seeded:]
    assert all(call.profile_id is not None for call in made), "a call went to the settings"
    assert {c.profile_id for c in made if c.simulation_id == first.pk} == {p_one, p_rater}
    assert {c.profile_id for c in made if c.simulation_id == second.pk} == {p_two}
    assert one.answered == _asked(first, p_one) > 0
    assert rater.answered == _asked(first, p_rater) > 0
    assert two.answered == _asked(second, p_two) > 0
    rated = ModelCall.objects.filter(simulation=first, task__startswith="importance")
    assert rated.exists() and set(
        rated.exclude(profile=None).values_list("profile_id", flat=True)
    ) == {p_rater}
    # At the same time: each run's calls began before the other's ended.
    spans = [
        ModelCall.objects.filter(simulation=s, profile__isnull=False).aggregate(
            start=Min("created_at"), end=Max("finished_at")
        )
        for s in (first, second)
    ]
    assert spans[0]["start"] < spans[1]["end"] and spans[1]["start"] < spans[0]["end"]


@pytest.mark.django_db(transaction=True)
def test_a_run_on_a_keyless_profile_fails_fast_with_the_reason(
    user: User, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable = "SMALLVILLE_TEST_ABSENT_KEY"
    monkeypatch.delenv(variable, raising=False)
    simulation = _simulation(user, 13)
    seeded = ModelCall.objects.count()
    body = {"name": "keyless", "base_url": "http://127.0.0.1:9/v1", "api_key_env": variable}
    keyless = api.post("/api/profiles/", body, format="json").json()["id"]
    api.put(
        f"/api/simulations/{simulation.pk}/models/",
        {"routes": {"residents": keyless}},
        format="json",
    )
    with celery_worker():
        engine.simulation_run(simulation=simulation, steps=2)
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != SimulationStatus.RUNNING,
            timeout=120,
            what="the run to stop",
        )
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.FAILED
    assert variable in simulation.status_reason and "not set" in simulation.status_reason
    assert ModelCall.objects.count() == seeded  # nothing asked, nothing billed
