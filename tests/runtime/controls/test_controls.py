"""The user controls over HTTP: interview, inner voice, object states, stepping in."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import Interview, ObjectState
from memories.models import Memory, MemoryKind
from runtime import engine
from tests.api import create, error_of, fields_of
from world.models import Agent, Event, Simulation, SimulationStatus
from world.services import simulation_set_status

ISABELLA = "Isabella Rodriguez"
KLAUS = "Klaus Mueller"
APARTMENT = "the Ville:Isabella Rodriguez's apartment:main room"
STOVE = "the Ville:Hobbs Cafe:cafe:cooking area"


def _base(simulation: dict[str, Any]) -> str:
    return f"/api/simulations/{simulation['id']}"


def _resident(simulation: dict[str, Any], name: str) -> str:
    return f"{_base(simulation)}/residents/{name}"


@pytest.fixture
def town(api: APIClient) -> dict[str, Any]:
    return create(api, config={"cognition": "paper"})


def _newcomer(api: APIClient, town: dict[str, Any], **fields: Any) -> Any:
    body = {"name": "Ada Lovelace", "address": APARTMENT, **fields}
    return api.post(f"{_base(town)}/residents/", body, format="json")


# --- interview -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_interview_answers_from_memories_and_keeps_its_session(
    api: APIClient, town: dict[str, Any]
) -> None:
    url = f"{_resident(town, ISABELLA)}/interview/"
    memories_before = Memory.objects.filter(agent__name=ISABELLA).count()
    first = api.post(
        url,
        {"persona": "a news reporter", "question": "Are you planning a party?"},
        format="json",
    )
    assert first.status_code == 201, first.content
    turn = first.json()
    assert turn["resident"] == ISABELLA and turn["persona"] == "a news reporter"
    assert "party" in turn["answer"].lower() and turn["answer"].startswith("Yes. I")
    assert turn["remembered"] is False and turn["step"] == 0

    second = api.post(
        url,
        {
            "persona": "a news reporter",
            "question": "Who are your friends?",
            "session": turn["session"],
            "remember": True,
        },
        format="json",
    )
    assert second.status_code == 201, second.content
    assert second.json()["session"] == turn["session"]
    assert second.json()["number"] == turn["number"] + 1

    # Only the remembered turn became a memory; the ledger has the interview calls.
    kept = Memory.objects.filter(agent__name=ISABELLA).exclude(number__lte=memories_before)
    assert [m.kind for m in kept] == [MemoryKind.CONVERSATION]
    assert "a news reporter asked Isabella Rodriguez" in kept[0].description
    listed = api.get(f"{_resident(town, ISABELLA)}/interviews/?session={turn['session']}")
    assert [row["number"] for row in listed.json()["results"]] == [
        turn["number"],
        turn["number"] + 1,
    ]
    assert api.get(f"{_resident(town, KLAUS)}/interviews/").json()["count"] == 0
    assert Event.objects.filter(simulation_id=town["id"], kind="interview.answered").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("status", [SimulationStatus.RUNNING, SimulationStatus.PAUSED])
def test_controls_work_while_running_or_paused(
    api: APIClient, town: dict[str, Any], status: SimulationStatus
) -> None:
    simulation = Simulation.objects.get(pk=town["id"])
    simulation_set_status(simulation=simulation, status=status)
    asked = api.post(
        f"{_resident(town, KLAUS)}/interview/",
        {"persona": "a friend", "question": "What are you studying?"},
        format="json",
    )
    assert asked.status_code == 201, asked.content
    whispered = api.post(
        f"{_resident(town, KLAUS)}/whisper/", {"statement": "I want to paint"}, format="json"
    )
    assert whispered.status_code == 201, whispered.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {},
        {"persona": "a reporter"},
        {"persona": "", "question": "Why?"},
        {"persona": "a reporter", "question": 7},
        {"persona": "a reporter", "question": "Why?", "session": "not a session!"},
        {"persona": "a reporter", "question": "Why?", "session": 12345},
        {"persona": "a reporter", "question": "Why?", "remember": "yes"},
        {"persona": "a reporter", "question": "Why?", "mood": "curious"},
    ],
)
def test_bad_interviews_get_400_and_change_nothing(
    api: APIClient, town: dict[str, Any], body: dict[str, Any]
) -> None:
    events = Event.objects.count()
    response = api.post(f"{_resident(town, ISABELLA)}/interview/", body, format="json")
    assert response.status_code == 400, response.content
    assert error_of(response)["code"] == "invalid"
    assert Event.objects.count() == events and not Interview.objects.exists()


# --- the inner voice -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_a_whisper_is_an_important_thought_to_act_on(api: APIClient, town: dict[str, Any]) -> None:
    statement = "I should invite Klaus Mueller to my Valentine's Day party"
    response = api.post(
        f"{_resident(town, ISABELLA)}/whisper/", {"statement": statement}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["statement"] == statement and body["resident"] == ISABELLA
    assert body["memory"]["kind"] == "thought" and body["memory"]["importance"] >= 8
    assert body["memory"]["description"] == statement
    isabella = Agent.objects.get(simulation_id=town["id"], name=ISABELLA)
    assert isabella.pending_thought == statement
    event = Event.objects.get(simulation_id=town["id"], seq=body["seq"])
    assert event.kind == "agent.whispered" and event.agent == ISABELLA

    # Her next step re-plans from the thought and clears it.
    ran = engine.simulation_run_inline(simulation=Simulation.objects.get(pk=town["id"]), steps=1)
    assert ran.status == "idle", ran.status_reason
    isabella.refresh_from_db()
    assert isabella.pending_thought == ""
    kinds = set(
        Event.objects.filter(simulation_id=town["id"], agent=ISABELLA, step=1).values_list(
            "kind", flat=True
        )
    )
    assert {"agent.thought_handled", "plan.revised"} <= kinds


# --- changing the world --------------------------------------------------------------------


@pytest.mark.django_db
def test_object_states_are_set_listed_and_cleared(api: APIClient, town: dict[str, Any]) -> None:
    url = f"{_base(town)}/objects/"
    put = api.put(url, {"address": STOVE, "state": "burning"}, format="json")
    assert put.status_code == 200, put.content
    assert put.json() == {"address": STOVE, "state": "burning", "by_agent": ""}
    assert api.get(url).json()["results"] == [put.json()]
    assert api.get(f"{url}?state=burn").json()["count"] == 1
    assert api.get(f"{url}?search=pub").json()["count"] == 0
    event = Event.objects.filter(simulation_id=town["id"], kind="object.state").get()
    assert event.agent == "" and event.payload == {"address": STOVE, "state": "burning"}

    cleared = api.put(url, {"address": STOVE, "state": "idle"}, format="json")
    assert cleared.status_code == 200 and cleared.json()["state"] == "idle"
    assert not ObjectState.objects.exists()


@pytest.mark.django_db
def test_a_state_set_again_is_news_to_who_saw_it_and_rebuild_agrees(
    api: APIClient, town: dict[str, Any]
) -> None:
    """Perception skips what is among an agent's recent observations; a user setting the
    stove on fire again makes "cooking area is burning" news to whoever saw the last fire.
    The projection does this in log order, so a rebuild gives the live state."""
    from world.eventlog import EventDraft, events_append, simulation_rebuild, simulation_snapshot

    simulation = Simulation.objects.get(pk=town["id"])
    isabella = Agent.objects.filter(simulation=simulation, name=ISABELLA)
    burning = "cooking area is burning"
    saw = EventDraft(kind="agent.perceived", agent=ISABELLA, payload={"observations": [burning]})
    events_append(simulation=simulation, drafts=[saw])
    assert burning in isabella.get().recent_observations
    fire = api.put(f"{_base(town)}/objects/", {"address": STOVE, "state": "burning"}, format="json")
    assert fire.status_code == 200
    assert burning not in isabella.get().recent_observations
    # Seen after it was set (one batch, in that order): kept, live and rebuilt alike.
    simulation.refresh_from_db()
    set_again = EventDraft(kind="object.state", payload={"address": STOVE, "state": "burning"})
    events_append(simulation=simulation, drafts=[set_again, saw])
    assert burning in isabella.get().recent_observations
    live = simulation_snapshot(simulation=simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live


@pytest.mark.django_db
def test_an_unknown_object_gets_400_with_the_nearest_addresses(
    api: APIClient, town: dict[str, Any]
) -> None:
    events = Event.objects.count()
    response = api.put(
        f"{_base(town)}/objects/",
        {"address": "the Ville:Hobbs Cafe:cafe:cooking aera", "state": "burning"},
        format="json",
    )
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert error["suggestions"][0] == STOVE
    assert len(error["suggestions"]) <= 5
    assert [e["field"] for e in error["errors"]] == ["address"]
    # An arena is a place, not an object.
    arena = api.put(
        f"{_base(town)}/objects/",
        {"address": "the Ville:Hobbs Cafe:cafe", "state": "x"},
        format="json",
    )
    assert arena.status_code == 400
    assert Event.objects.count() == events


# --- stepping in ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_take_control_go_and_give_back(api: APIClient, town: dict[str, Any]) -> None:
    klaus = _resident(town, KLAUS)
    refused = api.post(f"{klaus}/go/", {"address": "the Ville:Hobbs Cafe:cafe"}, format="json")
    assert refused.status_code == 409 and error_of(refused)["code"] == "conflict"

    taken = api.post(f"{klaus}/control/", {"user_controlled": True}, format="json")
    assert taken.status_code == 200, taken.content
    assert taken.json()["user_controlled"] is True and taken.json()["action"] == ""

    unknown = api.post(f"{klaus}/go/", {"address": "the Ville:Hobs Cafe:cafe"}, format="json")
    assert unknown.status_code == 400
    assert "the Ville:Hobbs Cafe:cafe" in error_of(unknown)["suggestions"]

    went = api.post(f"{klaus}/go/", {"address": "the Ville:Hobbs Cafe:cafe"}, format="json")
    assert went.status_code == 200, went.content
    state = went.json()
    assert state["action"] == "walking to the cafe of Hobbs Cafe"
    assert state["path_length"] > 10
    before = Agent.objects.get(simulation_id=town["id"], name=KLAUS).tile

    # It walks a tile a step, and decides nothing else.
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=town["id"]), steps=3)
    agent = Agent.objects.get(simulation_id=town["id"], name=KLAUS)
    assert len(agent.path) == state["path_length"] - 3
    assert abs(agent.tile_x - before[0]) + abs(agent.tile_y - before[1]) == 3
    assert not Event.objects.filter(agent=KLAUS, kind="plan.made", step__gt=0).exists()

    back = api.post(f"{klaus}/control/", {"user_controlled": False}, format="json")
    assert back.json()["user_controlled"] is False
    assert (
        api.post(f"{klaus}/control/", {"user_controlled": "no"}, format="json").status_code == 400
    )


@pytest.mark.django_db
def test_a_newcomer_steps_in(api: APIClient, town: dict[str, Any]) -> None:
    response = _newcomer(
        api,
        town,
        age=36,
        innate="curious, precise",
        memories=["I am new in town and want to meet the cafe owner"],
        knows="here",
    )
    assert response.status_code == 201, response.content
    ada = response.json()
    assert ada["user_controlled"] is True and ada["first_name"] == "Ada"
    assert ada["last_name"] == "Lovelace" and ada["location"] == APARTMENT
    assert ada["spatial_memory"] == {
        "the Ville": {
            "Isabella Rodriguez's apartment": {
                "main room": ["bed", "closet", "desk", "refrigerator", "shelf"]
            }
        }
    }
    memory = Memory.objects.get(agent__name="Ada Lovelace")
    assert memory.kind == MemoryKind.THOUGHT
    listed = api.get(f"{_base(town)}/residents/?search=ada").json()
    assert [row["name"] for row in listed["results"]] == ["Ada Lovelace"]

    again = _newcomer(api, town)
    assert again.status_code == 400 and "already lives" in error_of(again)["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"address": "the Ville:Nowhere"}, "address"),
        ({"address": None}, None),  # the whole request: neither start
        ({"address": APARTMENT, "tile": [1, 1]}, None),  # both
        ({"address": None, "tile": [80, 12]}, "tile"),  # a wall
        ({"address": None, "tile": [500, 12]}, "tile"),  # off the map
        ({"name": "12345"}, "name"),
        ({"name": "a/b"}, "name"),
        ({"living_area": "the Ville:Nowhere:room"}, "living_area"),
        ({"age": "36"}, "age"),
        ({"knows": "everything"}, "knows"),
        ({"memories": "not a list"}, "memories"),
        ({"wings": 2}, "wings"),
    ],
)
def test_bad_newcomers_get_400(
    api: APIClient, town: dict[str, Any], fields: dict[str, Any], field: str | None
) -> None:
    body = {"name": "Ada Lovelace", "address": APARTMENT, **fields}
    body = {k: v for k, v in body.items() if v is not None}
    agents = Agent.objects.count()
    response = api.post(f"{_base(town)}/residents/", body, format="json")
    assert response.status_code == 400, response.content
    detail = fields_of(response)
    assert field in detail, detail  # None: the request as a whole
    assert Agent.objects.count() == agents


@pytest.mark.django_db
def test_say_to_a_resident_in_sight(api: APIClient, town: dict[str, Any]) -> None:
    assert _newcomer(api, town).status_code == 201
    ada = _resident(town, "Ada Lovelace")
    said = api.post(
        f"{ada}/say/", {"to": ISABELLA, "text": "Hello Isabella, I am new here."}, format="json"
    )
    assert said.status_code == 201, said.content
    conversation = said.json()
    assert conversation["participants"] == ["Ada Lovelace", ISABELLA]
    assert conversation["lines"][0] == {
        "speaker": "Ada Lovelace",
        "text": "Hello Isabella, I am new here.",
    }
    assert conversation["lines"][1]["speaker"] == ISABELLA and conversation["line_count"] == 2
    for name in ("Ada Lovelace", ISABELLA):
        memory = Memory.objects.filter(agent__name=name, kind=MemoryKind.CONVERSATION).get()
        assert "I am new here" in memory.description

    # Klaus is in his dorm, out of sight; Isabella is not user-controlled.
    far = api.post(f"{ada}/say/", {"to": KLAUS, "text": "Hi"}, format="json")
    assert far.status_code == 400 and "not in sight" in error_of(far)["detail"]
    back = api.post(
        f"{_resident(town, ISABELLA)}/say/", {"to": "Ada Lovelace", "text": "Hi"}, format="json"
    )
    assert back.status_code == 409
    nobody = api.post(f"{ada}/say/", {"to": "Nobody", "text": "Hi"}, format="json")
    assert nobody.status_code == 404


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_residents_perceive_and_remember_a_newcomer(api: APIClient, town: dict[str, Any]) -> None:
    assert _newcomer(api, town).status_code == 201
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=town["id"]), steps=2)
    seen = Memory.objects.filter(
        agent__name=ISABELLA, kind=MemoryKind.OBSERVATION, description__startswith="Ada Lovelace"
    )
    assert seen.exists()
    # And the newcomer perceives her.
    assert Memory.objects.filter(
        agent__name="Ada Lovelace", kind=MemoryKind.OBSERVATION, description__startswith=ISABELLA
    ).exists()


@pytest.mark.django_db
def test_a_step_decided_before_control_was_taken_does_not_walk_it_off(
    api: APIClient, town: dict[str, Any]
) -> None:
    from runtime.commit_context import CommitContext
    from runtime.rules.controls import drop_stale_actions
    from world.eventlog import EventDraft

    assert api.post(
        f"{_resident(town, KLAUS)}/control/", {"user_controlled": True}, format="json"
    ).json()["user_controlled"]
    walk = {"action": "walking to class", "start_step": 0, "end_step": 9, "path": [[1, 2]]}
    chat = {**walk, "action": "chatting with Maria Lopez", "conversation": "Maria Lopez"}
    drafts = [
        EventDraft(kind="agent.acting", agent=KLAUS, payload=walk),
        EventDraft(kind="agent.acting", agent=KLAUS, payload=chat),
        EventDraft(kind="agent.acting", agent=ISABELLA, payload=walk),
        EventDraft(kind="agent.moved", agent=KLAUS, payload={"tile": [1, 2]}),
    ]
    kept = drop_stale_actions(CommitContext(Simulation.objects.get(pk=town["id"]), 0), drafts)
    assert kept == drafts[1:]


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_the_minimal_cognition_leaves_a_user_controlled_resident_where_it_is(
    api: APIClient,
) -> None:
    town = create(api)  # minimal cognition
    taken = api.post(f"{_resident(town, KLAUS)}/control/", {"user_controlled": True}, format="json")
    assert taken.status_code == 200
    before = Agent.objects.get(simulation_id=town["id"], name=KLAUS).tile
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=town["id"]), steps=5)
    assert Agent.objects.get(simulation_id=town["id"], name=KLAUS).tile == before


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_a_second_go_within_a_step_does_not_make_the_agent_jump(
    api: APIClient, town: dict[str, Any]
) -> None:
    """The step's move, decided along the first path, is dropped at the commit when the
    user sent the agent elsewhere meanwhile; a move along the current path is kept."""
    from runtime.commit_context import CommitContext
    from runtime.rules.controls import drop_stale_moves
    from world.eventlog import EventDraft

    klaus = _resident(town, KLAUS)
    simulation = Simulation.objects.get(pk=town["id"])
    assert (
        api.post(f"{klaus}/control/", {"user_controlled": True}, format="json").status_code == 200
    )
    cafe = {"address": "the Ville:Hobbs Cafe:cafe"}
    assert api.post(f"{klaus}/go/", cafe, format="json").status_code == 200
    engine.simulation_run_inline(simulation=simulation, steps=12)  # out of his room
    agent = Agent.objects.get(simulation_id=town["id"], name=KLAUS)
    old_head = agent.path[0]  # what a step decided now would move to
    home = {"address": agent.living_area}
    assert api.post(f"{klaus}/go/", home, format="json").status_code == 200
    agent.refresh_from_db()
    new_head = agent.path[0]
    assert new_head != old_head  # back the way it came
    stale = EventDraft(kind="agent.moved", agent=KLAUS, payload={"tile": old_head})
    current = EventDraft(kind="agent.moved", agent=KLAUS, payload={"tile": new_head})
    other = EventDraft(kind="agent.moved", agent=ISABELLA, payload={"tile": [3, 4]})
    assert drop_stale_moves(CommitContext(simulation, 0), [stale, other]) == [other]
    assert drop_stale_moves(CommitContext(simulation, 0), [current, other]) == [current, other]

    engine.simulation_run_inline(simulation=simulation, steps=3)
    tiles = [agent.tile] + [
        tuple(e.payload["tile"])
        for e in Event.objects.filter(
            simulation=simulation, agent=KLAUS, kind="agent.moved", step__gt=12
        ).order_by("seq")
    ]
    assert len(tiles) == 4
    for (x0, y0), (x1, y1) in itertools.pairwise(tiles):
        assert max(abs(x1 - x0), abs(y1 - y0)) == 1, tiles


@pytest.mark.django_db
def test_an_interview_after_the_longest_whispers_is_answered_within_its_limit(
    api: APIClient, town: dict[str, Any]
) -> None:
    """The offline answer joins the two most relevant memories; two whispers of the
    longest statement a whisper takes once made it longer than an answer may be (a 500,
    for good). Policies clip to their schema's limits now."""
    for word in ("party", "party"):
        statement = ("I am planning a " + word + " at Hobbs Cafe with music ") * 40
        statement = statement[:1000].rsplit(" ", 1)[0]
        whispered = api.post(
            f"{_resident(town, ISABELLA)}/whisper/", {"statement": statement}, format="json"
        )
        assert whispered.status_code == 201, whispered.content
    asked = api.post(
        f"{_resident(town, ISABELLA)}/interview/",
        {"persona": "a friend", "question": "What party are you planning at Hobbs Cafe?"},
        format="json",
    )
    assert asked.status_code == 201, asked.content
    answer = asked.json()["answer"]
    assert "party" in answer.lower() and len(answer) <= 2000
