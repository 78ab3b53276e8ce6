"""Scenarios on a running town: a base of five residents written in the tests, in the
shipped village, run offline with the paper's cognition. An announcement spreads past
those who heard it, a resident who arrives plans and is seen, one who leaves is gone;
both engines write one log, and replay and fork reproduce it."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import PlanItem, PlanLevel, Scenario, ScenarioStatus
from agents.projections.scenarios import ScenarioProjection
from evaluations.models import Evaluation
from evaluations.runner import evaluation_run
from memories.models import Memory
from runtime import engine
from runtime.scenarios import scenarios_next_step, step_of
from world.eventlog import simulation_fork, simulation_rebuild, simulation_snapshot
from world.models import Agent, Base, Event, Simulation, SimulationStatus

from ..bases.test_bases_api import five

W = "Brindle Green"
START = "2024-05-06T06:00:00Z"
FAIR = "The lantern fair moves to Linden park on May 9 from 2 pm to 5 pm"
HEARD_FIRST = {"Ines Vark", "Bram Vark"}  # they start in Wren cottage


def at(hh_mm: str) -> str:
    return f"2024-05-06T{hh_mm}:00Z"


SCENARIOS: list[dict[str, Any]] = [
    {"kind": "announce", "at": at("06:01"), "place": f"{W}:Wren cottage", "statement": FAIR},
    {
        "kind": "whisper",
        "at": at("06:01"),
        "resident": "Dov Ashby",
        "statement": "I should oil the chain of the old tandem today",
    },
    {
        "kind": "arrive",
        "at": at("06:02"),
        "name": "Yara Quill",
        "age": 41,
        "innate": "talkative, warm",
        "currently": "Yara Quill is visiting her cousin Dov Ashby for a week",
        "lifestyle": "Yara Quill wakes up around 6 am and goes to bed around 10 pm.",
        "living_area": f"{W}:Alder house:main room",
        "address": f"{W}:Alder house:main room",
        "memories": ["Yara Quill is Dov Ashby's cousin"],
    },
    {
        "kind": "object_state",
        "at": at("06:03"),
        "address": f"{W}:Kettle cafe:cafe:espresso machine",
        "state": "leaking steam",
    },
    {"kind": "leave", "at": at("07:00"), "resident": "Elke Moor"},
]


STEP = 60  # sim seconds a step: the scenarios at 06:01, 06:02, 06:03 and 07:00 are due at
APPLIED_AT = [1, 1, 2, 3, 60]  # these steps


def village(api: APIClient, seed: int = 3) -> Simulation:
    """The five menders in the village from 06:00, a minute a step, with SCENARIOS."""
    if not Base.objects.filter(name="menders").exists():  # one base for all its runs
        base = api.post("/api/bases/", five(), format="json")
        assert base.status_code == 201, base.content
    body = {
        "base": "menders",
        "sec_per_step": STEP,
        "start_time": START,
        "seed": seed,
        "config": {"cognition": "paper"},
    }
    created = api.post("/api/simulations/", body, format="json")
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    for scenario in SCENARIOS:
        added = api.post(f"/api/simulations/{pk}/scenarios/", scenario, format="json")
        assert added.status_code == 201, added.content
    return Simulation.objects.get(pk=pk)


def log_of(simulation: Simulation) -> list[tuple[Any, ...]]:
    rows = Event.objects.filter(simulation=simulation).order_by("seq")
    return list(rows.values_list("seq", "step", "sim_time", "kind", "agent", "payload"))


def run(simulation: Simulation, settings: Any, engine_name: str, steps: int) -> Simulation:
    settings.SMALLVILLE_ENGINE = engine_name
    settings.SMALLVILLE_AHEAD_ORDER = "ahead"
    ran = engine.simulation_run_inline(simulation=simulation, steps=steps)
    assert ran.status == SimulationStatus.IDLE, ran.status_reason
    return ran


def knows_of_the_fair(simulation: Simulation) -> set[str]:
    """Residents with a memory that carries the fair's key words, in anyone's words."""
    rows = Memory.objects.filter(simulation=simulation, description__icontains="lantern fair")
    return set(rows.values_list("agent__name", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_morning_with_scenarios(api: APIClient, settings: Any) -> None:
    """Hour by hour up to a sim day: every scenario applies at its step as log events;
    the fair spreads past Wren cottage; Yara plans her day and is seen; Elke is gone from
    07:00."""
    simulation = run(village(api), settings, "barrier", 180)  # 06:00 to 09:00
    while not knows_of_the_fair(simulation) - HEARD_FIRST and simulation.step < 24 * 60:
        simulation = run(simulation, settings, "barrier", 60)

    scenarios = Scenario.objects.filter(simulation=simulation).order_by("number")
    assert [s.status for s in scenarios] == [ScenarioStatus.APPLIED] * 5
    assert [s.applied_step for s in scenarios] == APPLIED_AT
    assert all(not s.outcome for s in scenarios)
    applied = Event.objects.filter(simulation=simulation, kind="scenario.applied")
    assert [e.step for e in applied.order_by("seq")] == APPLIED_AT

    # The announcement: heard by those in Wren cottage, then passed on by talk.
    heard = Memory.objects.filter(simulation=simulation, description=FAIR, kind="thought")
    assert set(heard.values_list("agent__name", flat=True)) == HEARD_FIRST
    assert all(m.importance >= 8 for m in heard)
    spread = knows_of_the_fair(simulation) - HEARD_FIRST
    assert spread, "nobody outside Wren cottage heard of the fair in a day"

    # The arrival: a resident of its own, who plans its day and is seen by others.
    yara = Agent.objects.get(simulation=simulation, name="Yara Quill")
    assert not yara.user_controlled and yara.left_step is None
    assert PlanItem.objects.filter(agent=yara, level=PlanLevel.DAY).exists()
    assert Event.objects.filter(simulation=simulation, agent="Yara Quill", kind="agent.moved")
    seen_by = {
        m.agent.name
        for m in Memory.objects.filter(simulation=simulation, kind="observation").select_related(
            "agent"
        )
        if m.description.startswith("Yara Quill is") and m.agent.name != "Yara Quill"
    }
    assert seen_by, "nobody saw Yara Quill"

    # The leave: Elke's row stays, retired; nothing of hers after step 180; nobody sees her.
    elke = Agent.objects.get(simulation=simulation, name="Elke Moor")
    assert elke.left_step == 60
    after = Event.objects.filter(simulation=simulation, agent="Elke Moor", step__gt=60)
    assert not after.exists()
    assert not Memory.objects.filter(
        simulation=simulation, description__startswith="Elke Moor is", created__gt=at("07:00")
    ).exists()
    assert simulation.agents.filter(left_step__isnull=True).count() == 5

    # Replay: the log rebuilds the same state, scenarios and the retired row included.
    live = simulation_snapshot(simulation=simulation)
    rows = ScenarioProjection().snapshot(simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live
    assert ScenarioProjection().snapshot(simulation) == rows and len(rows) == 5

    # An evaluation of this run measures the fair, given as parameters (no base names it):
    # who holds the news and from whom, and the fair as an event in its park.
    made = api.post(
        f"/api/simulations/{simulation.pk}/evaluations/",
        {
            "kinds": ["diffusion", "coordination"],
            "facts": [{"text": FAIR, "words": [["lantern"], ["fair"]]}],
            "events": [
                {
                    "what": "the lantern fair",
                    "place": "Linden park",
                    "start": "2024-05-09T14:00:00+00:00",
                    "end": "2024-05-09T17:00:00+00:00",
                    "words": [["lantern"], ["fair"]],
                }
            ],
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    number = made.json()["number"]
    evaluation = evaluation_run(
        evaluation=Evaluation.objects.get(simulation=simulation, number=number)
    )
    measured = evaluation.result["simulations"][str(simulation.pk)]
    (fair,) = measured["news"]
    holders = set(fair["residents"])
    assert holders & HEARD_FIRST and holders - HEARD_FIRST, holders  # heard, then it spread
    (event,) = measured["events"]
    assert event["window"].endswith("at Linden park"), event
    (asked,) = evaluation.result["diffusion"]["facts"]
    assert set(asked["by_interview"]["knows"]) & HEARD_FIRST, asked


@pytest.mark.django_db(transaction=True)
def test_both_engines_and_a_fork_write_one_log(api: APIClient, settings: Any) -> None:
    barrier = run(village(api, seed=4), settings, "barrier", 120)
    ahead = run(village(api, seed=4), settings, "ahead", 120)
    b, a = log_of(barrier), log_of(ahead)
    assert {"scenario.added", "scenario.applied", "agent.left", "agent.created"} <= {
        row[3] for row in b
    }
    assert [x[1:] for x in a] == [y[1:] for y in b]

    # A fork before the scenarios keeps them pending, and running it gives the parent's log.
    child = simulation_fork(simulation=barrier, step=0)
    assert Scenario.objects.filter(simulation=child, status=ScenarioStatus.PENDING).count() == 5
    assert scenarios_next_step(simulation=child) == 1
    child = run(child, settings, "ahead", 120)
    assert [x[1:] for x in log_of(child)] == [y[1:] for y in b]


@pytest.mark.django_db(transaction=True)
def test_a_scenario_due_while_paused_applies_when_the_run_goes_on(
    api: APIClient, settings: Any
) -> None:
    """Added for the current step between runs: applied at the start of the next run, by
    either engine alike."""
    logs = []
    for name in ("barrier", "ahead"):
        simulation = run(village(api, seed=5), settings, name, 12)
        now = simulation.sim_time.isoformat()
        body = {"kind": "whisper", "at": now, "resident": "Cleo Dunn", "statement": "Buy chalk"}
        added = api.post(f"/api/simulations/{simulation.pk}/scenarios/", body, format="json")
        assert added.status_code == 201, added.content
        assert added.json()["step"] == step_of(simulation, simulation.sim_time) == 12
        simulation = run(simulation, settings, name, 6)
        applied = Scenario.objects.get(simulation=simulation, number=added.json()["number"])
        assert applied.status == ScenarioStatus.APPLIED and applied.applied_step == 12
        logs.append([row[1:] for row in log_of(simulation)])
    assert logs[0] == logs[1]
