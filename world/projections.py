"""The simulation's own projection: its clock (`step`) and run parameters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .events import SIMULATION_BRANCHED, SIMULATION_CREATED, SIMULATION_STEPPED
from .models import Event, Simulation


class SimulationProjection:
    name = "simulation"
    order = 0
    kinds = frozenset({SIMULATION_CREATED, SIMULATION_BRANCHED, SIMULATION_STEPPED})
    in_log_order = False

    def reset(self, simulation: Simulation) -> None:
        Simulation.objects.filter(pk=simulation.pk).update(step=0)
        simulation.step = 0

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        fields: dict[str, Any] = {}
        for event in events:
            if event.kind == SIMULATION_CREATED:
                fields.update(
                    start_time=datetime.fromisoformat(event.payload["start_time"]),
                    sec_per_step=event.payload["sec_per_step"],
                    seed=event.payload["seed"],
                    config=event.payload["config"],
                    step=0,
                )
            elif event.kind == SIMULATION_BRANCHED:
                fields.update(seed=event.payload["seed"], config=event.payload["config"])
            else:
                fields["step"] = event.payload["step"]
        Simulation.objects.filter(pk=simulation.pk).update(**fields)
        for key, value in fields.items():
            setattr(simulation, key, value)

    def snapshot(self, simulation: Simulation) -> Any:
        row: dict[str, Any] = Simulation.objects.values(
            "step", "start_time", "sec_per_step", "seed", "config", "base", "town_id"
        ).get(pk=simulation.pk)  # type: ignore[assignment]
        row["start_time"] = row["start_time"].isoformat()
        return row
