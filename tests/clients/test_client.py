"""The Python client (clients/python) against the production server started as `make serve`
starts it, with a real Celery worker: errors carry the API's status, code and message; a
run is started, followed live through a server restart (resumed with Last-Event-ID,
nothing lost or repeated) and waited for; residents are interviewed and whispered to; a
simulation is forked and evaluated; and the authoring calls write what they say."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from smallville_client import (
    BadRequest,
    Base,
    Client,
    Conflict,
    Event,
    Forbidden,
    NotFound,
    Unauthorized,
)

from agents.models import Interview, Scenario
from tests.clients import token_of, url_of
from tests.factories import N3
from tests.production_server import ProductionServer
from world.models import Agent, Simulation
from world.models import Base as BaseRow
from world.models import Event as EventRow

MINIMAL = {"cognition": "minimal"}  # walking only: these tests drive the client, not minds

pytestmark = pytest.mark.django_db(transaction=True)


def test_errors_carry_the_apis_status_code_and_message(
    client: Client, served: ProductionServer, other_user: User
) -> None:
    simulation = client.create_simulation(N3, config=MINIMAL)
    with pytest.raises(BadRequest) as bad:
        client.run(simulation, steps=0)
    assert (bad.value.status, bad.value.code) == (400, "invalid")
    assert bad.value.fields == ["steps"] and bad.value.message.startswith("steps: ")
    with pytest.raises(BadRequest) as unknown:
        client.create_simulation("no_such_base")
    assert unknown.value.fields == ["base"] and "no_such_base" in unknown.value.message
    with pytest.raises(NotFound) as missing:
        client.simulation(simulation["id"] + 10_000)
    assert (missing.value.status, missing.value.code) == (404, "not_found")
    # Another user's simulation is not found, and writes nothing.
    stranger = Client(url_of(served), token_of(other_user))
    with pytest.raises(NotFound):
        stranger.whisper(simulation, "Klaus Mueller", "I should leave town")
    with pytest.raises(Unauthorized) as wrong:
        Client(url_of(served), "sv_not-a-token").simulations()
    assert wrong.value.status == 401 and wrong.value.code == "authentication_failed"
    assert str(wrong.value).startswith("401 authentication_failed: ")


def test_a_run_is_followed_live_through_a_server_restart_and_waited_for(
    client: Client, served: ProductionServer
) -> None:
    simulation = client.create_simulation(N3, config=MINIMAL, name="followed")
    until = datetime.fromisoformat(simulation["sim_time"]) + timedelta(minutes=10)
    started = client.run(simulation, until=until)
    assert started["status"] == "running" and started["target_step"] == 60
    with pytest.raises(Conflict) as running:
        client.run(simulation, steps=5)
    assert running.value.code == "conflict"

    received: list[Event] = []
    with client.stream(simulation) as events:
        for event in events:
            received.append(event)
            if len(received) == 40:  # mid-run: the server goes away and comes back
                served.stop()
                served.start()
            if event["kind"] == "simulation.stepped" and event["payload"]["step"] == 60:
                break
    assert events.reconnects >= 1
    assert [e["seq"] for e in received] == list(range(1, received[-1]["seq"] + 1))
    assert received == list(client.events(simulation, step_max=60))

    progress = client.wait(simulation, timeout=120)
    assert (progress["status"], progress["step"]) == ("idle", 60)
    # After a seq, with filters: only what was asked for.
    near_end = received[-1]["seq"] - 10
    with client.stream(simulation, after=near_end, kinds=["simulation.stepped"]) as tail:
        last = next(tail)
    assert last["kind"] == "simulation.stepped" and last["seq"] > near_end
    klaus = [e for e in received if e["agent"] == "Klaus Mueller" and e["kind"] == "agent.created"]
    with client.stream(simulation, kinds=["agent.created"], residents=["Klaus Mueller"]) as one:
        assert next(one) == klaus[0]


def test_interview_whisper_fork_and_evaluate(client: Client) -> None:
    simulation = client.create_simulation(N3, config=MINIMAL)
    client.run(simulation, steps=6)
    assert client.wait(simulation, timeout=120)["step"] == 6

    asked = client.interview(simulation, "Klaus Mueller", "What are you working on?")
    assert asked["resident"] == "Klaus Mueller" and asked["answer"]
    again = client.interview(
        simulation, "Klaus Mueller", "And after that?", session=asked["session"], remember=True
    )
    assert again["session"] == asked["session"] and again["remembered"] is True
    assert Interview.objects.filter(session=asked["session"]).count() == 2

    whispered = client.whisper(simulation, "Isabella Rodriguez", "I should bake bread today")
    assert whispered["statement"] == "I should bake bread today"
    assert whispered["memory"] is not None
    assert whispered["memory"]["description"] == "I should bake bread today"

    child = client.fork(simulation, step=3, name="at three")
    assert (child["parent"], child["forked_at_step"], child["step"]) == (simulation["id"], 3, 3)

    evaluation = client.evaluate(simulation, ["diffusion"], timeout=300)
    assert evaluation["status"] == "done" and evaluation["done"] == evaluation["total"]
    assert client.evaluation(simulation, evaluation["number"]) == evaluation
    with pytest.raises(BadRequest) as bad:
        client.evaluate(simulation, ["diffusion"], step=99)
    assert bad.value.fields == ["step"] and "beyond the simulation's step 6" in bad.value.message


def _document(base: Base, name: str) -> dict[str, Any]:
    """A base file's content: the base's, under another name."""
    made: dict[str, Any] = {**base, "name": name, "description": "made by the client"}
    for read_only in ("id", "shipped", "owner", "created_at", "updated_at"):
        del made[read_only]
    return made


def test_bases_scenarios_and_residents_are_authored(client: Client, user: User) -> None:
    shipped = next(b for b in client.bases.list() if b["name"] == N3)
    assert shipped["shipped"] is True and client.bases.get(shipped["id"]) == shipped
    with pytest.raises(Forbidden):
        client.bases.delete(shipped["id"])
    copy = client.bases.copy(shipped["id"], name="my ville")
    assert (copy["name"], copy["owner"], copy["shipped"]) == ("my ville", "alice", False)
    changed = client.bases.update(copy["id"], {"description": "three friends"})
    assert changed["description"] == "three friends"
    made = client.bases.create(_document(shipped, "from a file"))
    assert {b["name"] for b in client.bases.list()} >= {"my ville", "from a file", N3}
    broken = _document(shipped, "broken")
    broken["residents"] = [{**broken["residents"][0], "living_area": "nowhere:at all"}]
    with pytest.raises(BadRequest) as bad:
        client.bases.create(broken)
    assert bad.value.fields == ["residents[0].living_area"], bad.value.problem
    assert "nowhere:at all" in bad.value.errors[0].message
    client.bases.delete(made["id"])
    with pytest.raises(NotFound):
        client.bases.get(made["id"])
    assert not BaseRow.objects.filter(pk=made["id"]).exists()

    simulation = client.create_simulation(copy["id"], config=MINIMAL)
    at = datetime.fromisoformat(simulation["sim_time"]) + timedelta(hours=2)
    added = client.scenarios.add(
        simulation, "whisper", at, resident="Klaus Mueller", statement="Visit the cafe"
    )
    assert added["status"] == "pending" and added["params"]["statement"] == "Visit the cafe"
    assert [s["number"] for s in client.scenarios.list(simulation, status="pending")] == [
        added["number"]
    ]
    assert client.scenarios.cancel(simulation, added["number"])["status"] == "cancelled"
    with pytest.raises(Conflict):
        client.scenarios.cancel(simulation, added["number"])
    assert Scenario.objects.get(simulation_id=simulation["id"]).status == "cancelled"

    newcomer = client.residents.arrive(
        simulation, "Ada Lovelace", address="the Ville:Hobbs Cafe:cafe", age=36
    )
    assert newcomer["name"] == "Ada Lovelace" and newcomer["user_controlled"] is False
    assert client.residents.get(simulation, "Ada Lovelace")["age"] == 36
    left = client.residents.leave(simulation, "Ada Lovelace")
    assert left["left_step"] == 0
    with pytest.raises(Conflict):
        client.residents.leave(simulation, "Ada Lovelace")
    assert Agent.objects.get(simulation_id=simulation["id"], name="Ada Lovelace").left_step == 0
    assert EventRow.objects.filter(simulation_id=simulation["id"], kind="agent.left").count() == 1
    assert Simulation.objects.get(pk=simulation["id"]).owner == user
