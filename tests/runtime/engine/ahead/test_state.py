"""What the engine that runs residents ahead keeps of the committed state between rounds:
read once, read again where its own commits changed it, and all again when something
else wrote to the log."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from runtime.controls.voice import agent_whisper
from runtime.engine.ahead.state import CommittedState
from tests.factories import three_residents
from world.models import Agent, Simulation

KLAUS, MARIA, ISABELLA = "Klaus Mueller", "Maria Lopez", "Isabella Rodriguez"


def read(state: CommittedState, simulation: Simulation) -> dict[str, Agent]:
    agents = state.agents([ISABELLA, KLAUS, MARIA])
    now = simulation.sim_time_at(simulation.step)
    state.setters()
    state.unrated(agents)
    state.commitments(agents, dict.fromkeys(agents, now))
    return agents


@pytest.mark.django_db
def test_a_quiet_round_reads_nothing_and_a_commit_has_only_what_it_changed_read(
    user: User, django_assert_num_queries: Any
) -> None:
    simulation = three_residents(user, 1)
    state = CommittedState(simulation)
    read(state, simulation)
    with django_assert_num_queries(0):
        agents = read(state, simulation)
    # A resident's own copy: a field set while deciding stays out of the state.
    agents[KLAUS].summary = "changed while deciding"
    assert state.agents([KLAUS])[KLAUS].summary != "changed while deciding"
    Agent.objects.filter(simulation=simulation, name=KLAUS).update(action="reading")
    moved = [{"kind": "agent.acting", "agent": KLAUS, "payload": {}}]
    state.committed(moved, seq_before=state.seq, seq=state.seq + 1)
    with django_assert_num_queries(1):  # Klaus's row, nothing else
        assert read(state, simulation)[KLAUS].action == "reading"
    rated = [{"kind": "memory.rated", "agent": MARIA, "payload": {}}]
    state.committed(rated, seq_before=state.seq, seq=state.seq + 1)
    with django_assert_num_queries(2):  # Maria's row and her memories awaiting a rating
        read(state, simulation)


@pytest.mark.django_db
def test_an_event_the_engine_did_not_write_has_everything_read_again(
    user: User, django_assert_num_queries: Any
) -> None:
    simulation = three_residents(user, 1)
    state = CommittedState(simulation)
    read(state, simulation)
    isabella = Agent.objects.get(simulation=simulation, name=ISABELLA)
    agent_whisper(simulation=simulation, agent=isabella, statement="I am hosting a party")
    simulation.refresh_from_db()
    assert simulation.last_seq > state.seq
    # The engine's next commit finds the log past what it wrote last.
    state.committed([], seq_before=simulation.last_seq, seq=simulation.last_seq)
    with django_assert_num_queries(4):  # rows, object states, ratings, commitments
        agents = read(state, simulation)
    assert agents[ISABELLA].pending_thought == "I am hosting a party"
