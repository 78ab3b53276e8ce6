"""The social loop through the `openai` backend, against a local server that answers each
prompt from its text alone (tests/agents/cognition/prompt_rules.py): what the residents learn, pass
on and plan can only come out right if the prompts carry it (the dialogue, who said it,
the places the resident knows, the date).

The conversations are driven directly, as one step would hold them (converse, remember,
embed, append), so that they happen whatever the residents' paths; then the simulation
runs across midnight, so the day of the party is planned.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.cognition.conversation import converse
from agents.cognition.mind import Mind
from agents.cognition.recall import remember
from agents.models import Commitment, Conversation, PlanItem, PlanLevel
from agents.services import simulation_create_from_base
from agents.tasks.conversation_takeaways import TAKEAWAYS
from llm.models import ModelCall
from memories.models import Memory, MemoryKind
from memories.services import memories_embed
from runtime import engine
from runtime.controls.common import context_now
from tests.factories import N3
from tests.model_server import ModelServer
from world.eventlog import events_append
from world.models import Simulation, SimulationStatus

from .prompt_rules import answer

ISABELLA, MARIA, KLAUS = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"
START = datetime(2023, 2, 13, 23, 40, tzinfo=UTC)  # day 1, twenty minutes before midnight
PARTY = datetime(2023, 2, 14, 17, 0, tzinfo=UTC)
KEY_FACTS = ("party", "Hobbs Cafe", "February 14", "5pm")


def talk(simulation: Simulation, initiator: str, partner: str) -> None:
    """A conversation `initiator` starts with `partner`, kept as a step keeps it: the
    drafts of `converse` and `remember`, their memories embedded, appended to the log."""
    context = context_now(simulation)
    mind = Mind(context, context.agents[initiator])
    converse(mind, context.agents[partner])
    remember(mind)
    memories_embed(simulation=simulation, events=mind.out)
    events_append(simulation=simulation, drafts=mind.out)


def news_of(simulation: Simulation, agent: str) -> list[Memory]:
    """The agent's memories that speak of the party."""
    return list(
        Memory.objects.filter(
            simulation=simulation, agent__name=agent, description__icontains="party"
        )
    )


def heard(simulation: Simulation, agent: str, source: str) -> Memory:
    """The agent's memo of what `source` told it."""
    return Memory.objects.get(
        simulation=simulation,
        agent__name=agent,
        kind=MemoryKind.THOUGHT,
        description__endswith=f"({source} told me).",
    )


def word_of_mouth(user: User) -> Simulation:
    """Isabella tells Maria of her party on day 1; then Maria tells Klaus."""
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=1,
        sec_per_step=60,
        start_time=START,
        config={"cognition": "paper"},
    )
    talk(simulation, ISABELLA, MARIA)
    assert news_of(simulation, KLAUS) == []  # Klaus has not heard of it yet
    talk(simulation, MARIA, KLAUS)
    return simulation


def assert_every_call_went_to_the_server(simulation: Simulation, server: ModelServer) -> None:
    """The ledger holds every call of the run: each one request to the server (the prompt
    it answered), through the `openai` backend, answered at the first attempt."""
    calls = ModelCall.objects.filter(simulation=simulation)
    prompts = [prompt for _, prompt in server.asked()]
    assert calls.count() == len(prompts) > 0
    assert set(calls.values_list("backend", "model", "error", "attempts")) == {
        ("openai", "prompt-reader", "", 1)
    }
    assert sorted(calls.values_list("prompt", flat=True)) == sorted(prompts)
    tasks = set(calls.values_list("task", flat=True))
    assert {"converse_line", "relationship", "conversation_takeaways"} <= tasks


@pytest.mark.django_db(transaction=True)
def test_a_fact_from_isabella_reaches_klaus_through_maria_with_its_source(
    user: User, prompt_server: ModelServer
) -> None:
    simulation = word_of_mouth(user)

    # Maria remembers what Isabella told her, as a fact that says who told it...
    from_isabella = heard(simulation, MARIA, ISABELLA)
    assert from_isabella.source["from"] == ISABELLA
    # ... and passes it on naming her source (the converse_line prompt showed it) ...
    to_klaus = Conversation.objects.get(simulation=simulation, participants=[MARIA, KLAUS])
    assert to_klaus.lines[0]["speaker"] == MARIA
    assert to_klaus.lines[0]["text"].startswith(f"{ISABELLA} told me that {ISABELLA} is ")
    # ... so Klaus's memo says Maria told him, and the key facts survived both hops.
    from_maria = heard(simulation, KLAUS, MARIA)
    assert from_maria.source["from"] == MARIA
    for memo in (from_isabella, from_maria):
        assert memo.description.startswith(f"{ISABELLA} is ")  # told of its host
        for fact in KEY_FACTS:
            assert fact in memo.description, (fact, memo.description)
    assert_every_call_went_to_the_server(simulation, prompt_server)


@pytest.mark.django_db(transaction=True)
def test_an_invitation_heard_on_day_1_is_in_the_plan_of_the_day_of_the_party(
    user: User, prompt_server: ModelServer
) -> None:
    simulation = word_of_mouth(user)
    simulation = engine.simulation_run_inline(simulation=simulation, steps=25)  # to 00:05
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason

    for name, source in ((MARIA, ISABELLA), (KLAUS, MARIA)):
        # Committed on day 1 (from the takeaways of the conversation)...
        commitment = Commitment.objects.get(simulation=simulation, agent__name=name)
        assert commitment.step == 0
        assert (commitment.start, commitment.address) == (PARTY, "the Ville:Hobbs Cafe:cafe")
        assert commitment.memory is not None
        thought = Memory.objects.get(
            simulation=simulation, agent__name=name, number=commitment.memory
        )
        assert thought.kind == MemoryKind.THOUGHT and thought.source["from"] == source
        assert "I will go to the party at Hobbs Cafe on February 14" in thought.description
        # ... in the hour plan of February 14, citing the thought it came from...
        day = PlanItem.objects.filter(
            simulation=simulation, agent__name=name, superseded=False, start__date=PARTY.date()
        )
        party = day.get(level=PlanLevel.HOUR, source_memory=thought.number)
        assert (party.start, party.duration_minutes) == (PARTY, 120)
        assert party.address == "the Ville:Hobbs Cafe:cafe"
        # ... planned around, not instead of, the rest of the day ...
        hours = day.filter(level=PlanLevel.HOUR)
        assert hours.filter(start__lt=PARTY).exists() and hours.filter(start__gt=PARTY).exists()
        # ... and kept at its time in the broad strokes (the day_plan prompt listed it).
        assert day.filter(level=PlanLevel.DAY, start=PARTY, description__contains="Hobbs Cafe")
    # The host goes too: its own plan for the day (a seed thought, no source) commits it.
    own = Commitment.objects.get(simulation=simulation, agent__name=ISABELLA)
    assert (own.start, own.address) == (PARTY, "the Ville:Hobbs Cafe:cafe")
    assert own.memory is not None
    plan = Memory.objects.get(simulation=simulation, agent__name=ISABELLA, number=own.memory)
    assert "party" in plan.description and not plan.source
    assert_every_call_went_to_the_server(simulation, prompt_server)
    tasks = set(ModelCall.objects.filter(simulation=simulation).values_list("task", flat=True))
    assert {"day_plan", "hourly_schedule", "importance_many", "summary"} <= tasks


TAKEAWAYS_INPUTS = {
    "agent_name": KLAUS,
    "summary": "Klaus Mueller is a student at Oak Hill College.",
    "partner": MARIA,
    "relationship": "Klaus Mueller knows Maria Lopez: they are dormmates.",
    "date": "2023-02-13",
    "time": "23:40",
    "places": ["Hobbs Cafe: cafe", "Johnson Park: park"],
    "dialogue": [
        f"{MARIA}: {ISABELLA} told me that {ISABELLA} is hosting a party at Hobbs Cafe on "
        "February 14th from 5pm to 7pm.",
        f"{KLAUS}: It was nice talking to you, Maria.",
    ],
}


def test_the_server_answers_from_the_prompt_text_alone() -> None:
    """The server's commitment is only as right as the prompt: without the place among
    the places listed, the dialogue or the date, it makes none."""
    ok = answer(TAKEAWAYS.render(TAKEAWAYS_INPUTS))
    assert ok["memo"] == (
        f"{ISABELLA} is hosting a party at Hobbs Cafe on February 14th from 5pm to 7pm "
        f"({MARIA} told me)."
    )
    assert ok["commitment"] == {
        "what": "going to the party",
        "place": "Hobbs Cafe: cafe",
        "date": "2023-02-14",
        "start": "17:00",
        "end": "19:00",
    }
    unknown_place = answer(TAKEAWAYS.render({**TAKEAWAYS_INPUTS, "places": ["Johnson Park: park"]}))
    assert unknown_place["memo"] == ok["memo"] and unknown_place["commitment"] is None
    unsaid = answer(TAKEAWAYS.render({**TAKEAWAYS_INPUTS, "dialogue": [f"{MARIA}: Hi Klaus!"]}))
    assert unsaid == {"memo": "", "thought": "", "commitment": None}
    undated = TAKEAWAYS.render(TAKEAWAYS_INPUTS).replace(" on 2023-02-13", "")
    assert answer(undated)["commitment"] is None
