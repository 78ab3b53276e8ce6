"""A rebuild from the event log recreates memories, evidence links and last-access times."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memories.models import Evidence, Memory, MemoryKind
from memories.services import MemoryDraft, memories_create, memories_touch
from tests.api import advance
from tests.factories import simulation_of
from world.eventlog import simulation_fork, simulation_rebuild, simulation_snapshot
from world.models import Simulation

ISABELLA = "Isabella Rodriguez"
KLAUS = "Klaus Mueller"


@pytest.fixture
def simulation(user: User, ville: object) -> Simulation:
    simulation = simulation_of(user)
    seeds = simulation.agents.get(name=ISABELLA).memories.count()
    advance(simulation.pk, 2)
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.OBSERVATION,
                description="Maria Lopez is sketching at the counter",
                importance=3,
                subject="Maria Lopez",
                predicate="is",
                object="sketching",
            ),
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.REFLECTION,
                description="Isabella's friends gather at Hobbs Cafe",
                importance=6,
                evidence=(1, 3),
            ),
            MemoryDraft(
                agent=KLAUS,
                kind=MemoryKind.PLAN,
                description="Klaus will study at the library this afternoon",
                importance=4,
            ),
        ],
    )
    advance(simulation.pk, 3)
    reflection = seeds + 2
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.REFLECTION,
                description="Hobbs Cafe is where Isabella belongs",
                importance=7,
                evidence=(reflection, seeds + 1, 2),
            )
        ],
    )
    simulation.refresh_from_db()
    memories_touch(
        simulation=simulation, agent=ISABELLA, numbers=[2, reflection], at=simulation.sim_time
    )
    advance(simulation.pk, 1)
    simulation.refresh_from_db()
    memories_touch(simulation=simulation, agent=KLAUS, numbers=[1], at=simulation.sim_time)
    memories_touch(simulation=simulation, agent=ISABELLA, numbers=[2], at=simulation.sim_time)
    return simulation


@pytest.mark.django_db
def test_rebuild_recreates_memories_evidence_and_touches(simulation: Simulation) -> None:
    isabella = simulation.agents.get(name=ISABELLA)
    top = isabella.memories.order_by("-number").first()
    assert top is not None and top.kind == MemoryKind.REFLECTION and top.depth == 2
    cited = list(
        Evidence.objects.filter(reflection=top)
        .order_by("position")
        .values_list("memory__number", flat=True)
    )
    assert cited == [top.number - 1, top.number - 2, 2]
    touched = isabella.memories.get(number=2)
    assert touched.last_accessed == simulation.sim_time > touched.created

    before = simulation_snapshot(simulation=simulation)
    memory_ids = set(Memory.objects.filter(simulation=simulation).values_list("id", flat=True))
    simulation_rebuild(simulation=simulation)
    after = simulation_snapshot(simulation=simulation)

    assert after == before
    rows = {(m["agent"], m["number"]): m for m in after["memories"]}
    assert rows[(ISABELLA, top.number)]["depth"] == 2
    assert rows[(ISABELLA, top.number)]["evidence"] == cited
    assert rows[(ISABELLA, top.number - 1)]["depth"] == 1
    assert rows[(ISABELLA, 2)]["last_accessed"] == simulation.sim_time.isoformat()
    # The rows are new ones: the rebuild really started from nothing.
    fresh = set(Memory.objects.filter(simulation=simulation).values_list("id", flat=True))
    assert not fresh & memory_ids


@pytest.mark.django_db
def test_fork_before_a_touch_keeps_the_old_access_time(simulation: Simulation) -> None:
    child = simulation_fork(simulation=simulation, step=5)
    memory = Memory.objects.get(simulation=child, agent__name=ISABELLA, number=2)
    # Touched at step 5 (kept), not at step 6 (after the fork).
    assert memory.last_accessed == child.sim_time_at(5)
    assert (
        Memory.objects.filter(simulation=child).count()
        == Memory.objects.filter(simulation=simulation).count()
    )
