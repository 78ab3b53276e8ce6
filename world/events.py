"""The world's events: a simulation is created, a fork takes its own seed or config, and
its clock steps.

All are applied by `world.projections.SimulationProjection`.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .eventlog import EventDraft

SIMULATION_CREATED = "simulation.created"
SIMULATION_STEPPED = "simulation.stepped"
# A fork's own seed or config for the steps after the fork (a counterfactual twin).
SIMULATION_BRANCHED = "simulation.branched"


class SimulationCreatedPayload(TypedDict):
    name: str
    town: str
    base: str
    start_time: str
    sec_per_step: int
    seed: int
    config: dict[str, Any]


class SimulationSteppedPayload(TypedDict):
    step: int


def simulation_created(
    *,
    name: str,
    town: str,
    base: str,
    start_time: str,
    sec_per_step: int,
    seed: int,
    config: dict[str, Any],
) -> EventDraft:
    payload = SimulationCreatedPayload(
        name=name,
        town=town,
        base=base,
        start_time=start_time,
        sec_per_step=sec_per_step,
        seed=seed,
        config=config,
    )
    return EventDraft(kind=SIMULATION_CREATED, payload=dict(payload))


def simulation_stepped(*, step: int) -> EventDraft:
    """The clock reaches `step`: the last event of every tick."""
    return EventDraft(kind=SIMULATION_STEPPED, payload=dict(SimulationSteppedPayload(step=step)))


def simulation_branched(*, seed: int, config: dict[str, Any]) -> EventDraft:
    """From here on the simulation runs with `seed` and `config` (a fork's own)."""
    return EventDraft(kind=SIMULATION_BRANCHED, payload={"seed": seed, "config": config})
