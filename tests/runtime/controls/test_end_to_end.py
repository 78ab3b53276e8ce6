"""End to end over HTTP: the inner voice spreads an invitation; a burning stove is put out.

The run endpoint hands ticks to Celery workers (in tests a queue nobody consumes), so the
test advances the simulation in-process with `simulation_run_inline` between requests.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import Conversation
from runtime import engine
from world.models import Agent, Event, Simulation
from world.selectors import address_at, town_cached

ISABELLA = "Isabella Rodriguez"
KLAUS = "Klaus Mueller"
STOVE = "the Ville:Hobbs Cafe:cafe:cooking area"
CAFE = "the Ville:Hobbs Cafe:cafe"
CHUNK = 30


def _run(simulation_id: int, steps: int) -> Simulation:
    simulation = engine.simulation_run_inline(
        simulation=Simulation.objects.get(pk=simulation_id), steps=steps
    )
    assert simulation.status == "idle", simulation.status_reason
    return simulation


def _met(simulation_id: int) -> Conversation | None:
    for conversation in Conversation.objects.filter(simulation_id=simulation_id):
        if {ISABELLA, KLAUS} <= set(conversation.participants):
            return conversation
    return None


def _run_until(simulation_id: int, done: Any, max_steps: int, chunk: int = CHUNK) -> int:
    ran = 0
    while not done() and ran < max_steps:
        _run(simulation_id, chunk)
        ran += chunk
    return ran


def _before_lunch(api: APIClient) -> int:
    """A new simulation of the three residents at 11:30, twenty sim seconds a step."""
    created = api.post(
        "/api/simulations/",
        {
            "base": "base_the_ville_isabella_maria_klaus",
            "config": {"cognition": "paper"},
            "start_time": "2023-02-13T11:30:00Z",
            "sec_per_step": 20,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    return int(created.json()["id"])


@pytest.mark.django_db(transaction=True)
def test_whisper_an_invitation_then_set_the_stove_on_fire(api: APIClient) -> None:
    sid = _before_lunch(api)
    base = f"/api/simulations/{sid}"
    residents = {r["name"] for r in api.get(f"{base}/residents/").json()["results"]}
    assert {ISABELLA, KLAUS} <= residents

    whispered = api.post(
        f"{base}/residents/{ISABELLA}/whisper/",
        {"statement": "I should invite Klaus Mueller to my Valentine's Day party"},
        format="json",
    )
    assert whispered.status_code == 201, whispered.content

    # Lunch at Hobbs Cafe: they meet, and she passes on the invitation.
    _run_until(sid, lambda: _met(sid), max_steps=600)
    conversation = _met(sid)
    assert conversation is not None, "Isabella and Klaus never talked"
    said = " ".join(line["text"] for line in conversation.lines if line["speaker"] == ISABELLA)
    assert "invited to my party" in said, conversation.lines

    memories = api.get(f"{base}/residents/{KLAUS}/memories/?kind=conversation&text=party")
    assert memories.status_code == 200
    invitations = [m for m in memories.json()["results"] if "invited" in m["description"]]
    assert invitations, memories.json()
    recalled = api.post(
        f"{base}/residents/{KLAUS}/retrieve/",
        {"query": "Valentine's Day party", "k": 5, "touch": False},
        format="json",
    )
    assert any("invited" in r["memory"]["description"] for r in recalled.json()["results"])

    # Klaus, asked, answers from that memory.
    asked = api.post(
        f"{base}/residents/{KLAUS}/interview/",
        {"persona": "a news reporter", "question": "Are you going to a party?"},
        format="json",
    )
    assert asked.status_code == 201 and "party" in asked.json()["answer"].lower()

    # The stove catches fire while she works alone in the cafe: she puts it out.
    _run_until(sid, lambda: _alone_in_cafe(sid), max_steps=900)
    assert _alone_in_cafe(sid), "Isabella is never alone in the cafe"
    fire_seq = _set_the_stove_on_fire(api, sid)
    _run(sid, 40)
    assert _fire_fought(sid, [ISABELLA], fire_seq).exists(), list(
        Event.objects.filter(
            simulation_id=sid, agent=ISABELLA, kind="agent.acting", seq__gt=fire_seq
        ).values_list("payload__action", flat=True)
    )
    assert _stove_state(api, sid) != "burning"
    saw = api.get(f"{base}/residents/{ISABELLA}/memories/?kind=observation&text=burning")
    assert saw.json()["count"] >= 1


@pytest.mark.django_db(transaction=True)
def test_a_fire_breaks_off_a_conversation_and_a_second_fire_is_news(api: APIClient) -> None:
    """Residents talking in the cafe see the stove catch fire: one of them leaves the
    conversation to put it out, at once. When it burns again a few minutes later, they
    put it out again (what a user sets is news, however recently the same was seen)."""
    sid = _before_lunch(api)
    base = f"/api/simulations/{sid}"
    thought = {"statement": "I should invite Klaus Mueller to my Valentine's Day party"}
    api.post(f"{base}/residents/{ISABELLA}/whisper/", thought, format="json")
    _run_until(sid, lambda: _met(sid), max_steps=600, chunk=1)  # stop while they talk
    step = Simulation.objects.get(pk=sid).step
    talking = Agent.objects.filter(simulation_id=sid, name__in=[ISABELLA, KLAUS])
    assert all(a.chatting_with and a.busy_until_step > step for a in talking), [
        (a.name, a.chatting_with, a.busy_until_step, step) for a in talking
    ]
    fire_seq = _set_the_stove_on_fire(api, sid)
    _run(sid, 3)
    assert _fire_fought(sid, [ISABELLA, KLAUS], fire_seq).exists()
    _run(sid, 30)
    assert _stove_state(api, sid) != "burning"

    # It catches fire again minutes later: news again to those who saw the first fire.
    again_seq = _set_the_stove_on_fire(api, sid)
    _run(sid, 30)
    assert _fire_fought(sid, [ISABELLA, KLAUS], again_seq).exists()
    assert _stove_state(api, sid) != "burning"


def _set_the_stove_on_fire(api: APIClient, simulation_id: int) -> int:
    """A user sets the stove burning; the seq of the last event of the log then."""
    url = f"/api/simulations/{simulation_id}/objects/"
    fire = api.put(url, {"address": STOVE, "state": "burning"}, format="json")
    assert fire.status_code == 200, fire.content
    return int(Event.objects.filter(simulation_id=simulation_id).latest("seq").seq)


def _fire_fought(simulation_id: int, residents: list[str], since_seq: int) -> Any:
    """The actions at the stove about its fire that these residents took after `since_seq`."""
    return Event.objects.filter(
        simulation_id=simulation_id,
        agent__in=residents,
        kind="agent.acting",
        seq__gt=since_seq,
        payload__address=STOVE,
        payload__action__icontains="fire",
    )


def _stove_state(api: APIClient, simulation_id: int) -> str | None:
    rows = api.get(f"/api/simulations/{simulation_id}/objects/").json()["results"]
    return {row["address"]: row["state"] for row in rows}.get(STOVE)


def _alone_in_cafe(simulation_id: int) -> bool:
    """Isabella is in the cafe, not walking or talking, and nobody else is there."""
    simulation = Simulation.objects.get(pk=simulation_id)
    town = town_cached(pk=simulation.town_id)
    here = {
        a.name: a for a in simulation.agents.all() if address_at(town=town, tile=a.tile) == CAFE
    }
    isabella = here.get(ISABELLA)
    if isabella is None or list(here) != [ISABELLA]:
        return False
    return not isabella.path and not isabella.chatting_with
