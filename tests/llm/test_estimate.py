"""The estimate before a run: from the ledger of earlier runs of the same base, per resident
and hour since the start, with the range over runs; the default table where there are
none; money at the routed profiles' prices; over HTTP, bad hours a 400 naming the field."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from llm.backends import OFFLINE_MODEL
from llm.estimate import DEFAULT_RANGE, DEFAULT_RATES, simulation_estimate
from llm.models import ModelCall, ModelProfile
from llm.profile_services import profile_save, simulation_models_set
from tests.api import error_of
from tests.factories import unseeded_simulation
from world.events import SIMULATION_STEPPED
from world.models import Event, Simulation

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.llm.urls")]


def ran(sim: Simulation, hours: float, calls: dict[int, list[tuple[str, int, int]]]) -> None:
    """`sim` as if it had run `hours` sim hours, its ledger `calls` (task, prompt and
    completion tokens) in the hour since its start that keys them, each 2 s of wall time
    after the one before, offline."""
    sim.step = round(hours * 3600 / sim.sec_per_step)
    sim.save(update_fields=["step"])
    agent, wall = sim.agents.order_by("pk")[0], sim.created_at
    for hour, rows in calls.items():
        at = sim.start_time + timedelta(hours=hour, minutes=1)
        for i, (task, prompt, completion) in enumerate(rows):
            call = ModelCall.objects.create(
                simulation=sim,
                agent=agent,
                decider=agent.name,
                task=task,
                backend="offline",
                model=OFFLINE_MODEL,
                prompt="made up",
                prompt_tokens=prompt,
                completion_tokens=completion,
                sim_time=at,
                step=round((at - sim.start_time).total_seconds() / sim.sec_per_step),
            )
            started = wall + timedelta(seconds=2 * i)
            ModelCall.objects.filter(pk=call.pk).update(
                created_at=started, finished_at=started + timedelta(seconds=1)
            )


@pytest.fixture
def earlier(user: User, monkeypatch: pytest.MonkeyPatch) -> list[Simulation]:
    """Two earlier hours of the base: 10 ratings and 2 decompositions, then 20 and 4."""
    one, two = (unseeded_simulation(user, monkeypatch) for _ in range(2))
    ran(one, 1, {0: [("importance", 100, 10)] * 10 + [("decompose", 500, 200)] * 2})
    ran(two, 1, {0: [("importance", 100, 10)] * 20 + [("decompose", 500, 200)] * 4})
    return [one, two]


def test_the_estimate_is_the_mean_of_earlier_runs_with_their_range(
    user: User, monkeypatch: pytest.MonkeyPatch, earlier: list[Simulation]
) -> None:
    target = unseeded_simulation(user, monkeypatch)
    found = simulation_estimate(simulation=target, hours=1)
    assert found["basis"] == "ledger"
    assert sorted(found["runs"]) == sorted(s.pk for s in earlier)
    assert found["calls"] == {"expected": 18.0, "low": 12.0, "high": 24.0}
    # 10 x 110 + 2 x 700 = 2,500 tokens; twice that
    assert found["tokens"] == {"expected": 3750.0, "low": 2500.0, "high": 5000.0}
    assert found["extrapolated_hours"] == 0
    by_task = {row["task"]: row for row in found["by_task"]}
    assert by_task["importance"]["calls"] == 15 and by_task["decompose"]["calls"] == 3
    assert found["cost"]["expected"] == 0  # on the settings: no prices
    # half an hour is half of it; an hour past what they ran takes their mean rate
    assert simulation_estimate(simulation=target, hours=0.5)["calls"]["expected"] == 9
    longer = simulation_estimate(simulation=target, hours=2)
    assert longer["calls"]["expected"] == 36 and longer["extrapolated_hours"] == 1


def test_only_a_runs_own_calls_count_not_seed_ratings_or_a_users_questions(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = unseeded_simulation(user, monkeypatch)
    ran(one, 1, {0: [("importance", 100, 10)] * 4})
    at = one.start_time
    for task, priority in (("importance", 0), ("interview", 0), ("reflection_insights", 1)):
        ModelCall.objects.create(
            simulation=one, task=task, backend="offline", model=OFFLINE_MODEL, prompt="p",
            priority=priority, sim_time=at, step=0, finished_at=one.created_at,
        )  # fmt: skip
    target = unseeded_simulation(user, monkeypatch)
    by_task = {
        r["task"]: r["calls"] for r in simulation_estimate(simulation=target, hours=1)["by_task"]
    }
    assert by_task == {"importance": 4, "reflection_insights": 1}


def test_money_is_at_the_prices_of_the_profiles_each_task_routes_to(
    user: User, monkeypatch: pytest.MonkeyPatch, earlier: list[Simulation]
) -> None:
    target = unseeded_simulation(user, monkeypatch)
    main = profile_save(user=user, name="main", backend="offline", input_price=Decimal("3"))
    main_out = Decimal("15")
    ModelProfile.objects.filter(pk=main.pk).update(output_price=main_out)
    cheap = profile_save(user=user, name="cheap", backend="offline", input_price=Decimal("1"))
    simulation_models_set(simulation=target, routes={"residents": main.pk, "ratings": cheap.pk})
    found = simulation_estimate(simulation=target, hours=1)
    by_task = {row["task"]: row for row in found["by_task"]}
    assert (by_task["importance"]["profile"], by_task["decompose"]["profile"]) == (
        cheap.pk,
        main.pk,
    )
    # decompose: 3 calls of 500 + 200 at 3 and 15 a million; ratings: 1,500 at 1
    decompose = (Decimal(1500) * 3 + Decimal(600) * 15) / 1_000_000
    assert by_task["decompose"]["cost"] == decompose.quantize(Decimal("0.0001"))
    low = (Decimal(1000) * 1 + Decimal(1000) * 3 + Decimal(400) * 15) / 1_000_000
    assert found["cost"]["low"] == low.quantize(Decimal("0.0001"))
    assert found["cost"]["low"] < found["cost"]["expected"] < found["cost"]["high"]


def test_wall_time_comes_from_runs_on_the_same_models_only(
    user: User, monkeypatch: pytest.MonkeyPatch, earlier: list[Simulation], settings: Any
) -> None:
    target = unseeded_simulation(user, monkeypatch)
    wall = simulation_estimate(simulation=target, hours=1)["wall_seconds"]
    assert wall == {"expected": 35.0, "low": 23.0, "high": 47.0}  # 12 and 24 calls, 2 s apart
    hosted = profile_save(
        user=user, name="hosted", backend="openai", base_url="http://127.0.0.1:9/v1", model="m"
    )
    simulation_models_set(simulation=target, routes={"residents": hosted.pk})
    assert simulation_estimate(simulation=target, hours=1)["wall_seconds"] is None


def test_wall_time_is_the_time_between_step_commits_without_idle_gaps(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's own time counts (a step with no call still took its time), a run
    paused for an hour does not, and a fork's copied log is not the fork's work."""
    one = unseeded_simulation(user, monkeypatch)
    ran(one, 1, {0: [("importance", 100, 10)] * 3})  # the calls span 4 s of the hour
    per_hour = 3600 // one.sec_per_step
    commits = [one.created_at + timedelta(seconds=3 * s) for s in range(per_hour // 2)]
    paused = commits[-1] + timedelta(hours=1)  # then resumed: the rest 3 s apart again
    commits += [paused + timedelta(seconds=3 * s) for s in range(per_hour - len(commits))]
    seq = one.events.count()  # after the residents' creation
    for step, committed in enumerate(commits, start=1):
        stepped = Event.objects.create(
            simulation=one, seq=seq + step, step=step, kind=SIMULATION_STEPPED,
            sim_time=one.start_time + timedelta(seconds=step * one.sec_per_step),
        )  # fmt: skip
        Event.objects.filter(pk=stepped.pk).update(created_at=committed)
    # The first step, and the first after the pause, count from their first call.
    for step, began in ((1, commits[0] - timedelta(seconds=7)), (per_hour // 2 + 1, paused)):
        call = ModelCall.objects.create(
            simulation=one, agent=one.agents.first(), decider="x", task="day_plan",
            backend="offline", model=OFFLINE_MODEL, prompt="p", step=step,
            sim_time=one.start_time + timedelta(seconds=step * one.sec_per_step),
        )  # fmt: skip
        ModelCall.objects.filter(pk=call.pk).update(created_at=began, finished_at=began)
    target = unseeded_simulation(user, monkeypatch)
    wall = simulation_estimate(simulation=target, hours=1)["wall_seconds"]
    # Steps 1 to per_hour - 1 are the first hour (the last step is the next hour's 00:00):
    # their per_hour - 2 gaps, 3 s each, but for the pause; and the first step's 7 s.
    expected = 3.0 * (per_hour - 3) + 7
    assert wall == {"expected": expected, "low": expected, "high": expected}


def test_with_no_earlier_run_the_default_table_answers_with_its_stated_range(
    user: User, other_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    someone_elses = unseeded_simulation(other_user, monkeypatch)
    ran(someone_elses, 1, {0: [("importance", 100, 10)] * 50})  # not the user's: not read
    target = unseeded_simulation(user, monkeypatch)
    found = simulation_estimate(simulation=target, hours=2)
    assert (found["basis"], found["runs"]) == ("default", [])
    table = sum(calls for calls, _, _ in DEFAULT_RATES.values()) * 3 * 2
    calls = found["calls"]
    assert calls["expected"] == pytest.approx(table, abs=0.1)
    assert calls["low"] == pytest.approx(table * DEFAULT_RANGE[0], abs=0.1)
    assert calls["high"] == pytest.approx(table * DEFAULT_RANGE[1], abs=0.1)
    assert found["wall_seconds"] is None


def estimate_url(simulation: Simulation) -> str:
    return f"/api/simulations/{simulation.pk}/estimate/"


def test_over_http_and_bad_hours_are_a_400_naming_the_field(
    api: APIClient, other_api: APIClient, user: User, earlier: list[Simulation]
) -> None:
    target = earlier[0]
    body = api.get(estimate_url(target), {"hours": "1.5"}).json()
    assert body["basis"] == "ledger" and body["hours"] == 1.5
    assert set(body["calls"]) == {"expected", "low", "high"}
    assert {row["task"] for row in body["by_task"]} == {"importance", "decompose"}
    for bad in ({}, {"hours": "soon"}, {"hours": "0"}, {"hours": "-1"}, {"hours": "nan"}):
        answer = api.get(estimate_url(target), bad)
        assert answer.status_code == 400, bad
        assert error_of(answer)["detail"].startswith("hours:"), bad
    assert api.get(estimate_url(target), {"hours": "721"}).status_code == 400
    assert other_api.get(estimate_url(target), {"hours": "1"}).status_code == 404
    assert APIClient().get(estimate_url(target), {"hours": "1"}).status_code in (401, 403)
