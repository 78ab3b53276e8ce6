"""The scenarios' projection: `scenario.*` events onto `Scenario` rows (pending, applied,
cancelled). Numbers are given by whoever adds a scenario, so the order of batches does
not matter; scenarios are only ever appended to the log (never staged ahead of it)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.forms.models import model_to_dict

from agents.events import SCENARIO_ADDED, SCENARIO_APPLIED, SCENARIO_CANCELLED
from agents.models import Scenario, ScenarioStatus
from world.models import Event, Simulation


class ScenarioProjection:
    name = "scenarios"
    order = 32
    kinds = frozenset({SCENARIO_ADDED, SCENARIO_CANCELLED, SCENARIO_APPLIED})
    in_log_order = True

    def reset(self, simulation: Simulation) -> None:
        Scenario.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        for event in events:
            p = event.payload
            if event.kind == SCENARIO_ADDED:
                Scenario.objects.create(
                    simulation=simulation,
                    number=p["number"],
                    kind=p["kind"],
                    step=p["step"],
                    at=datetime.fromisoformat(p["at"]),
                    params=p["params"],
                    added_step=event.step,
                )
                continue
            rows = Scenario.objects.filter(simulation=simulation, number=p["number"])
            if event.kind == SCENARIO_CANCELLED:
                rows.update(status=ScenarioStatus.CANCELLED)
            else:
                rows.update(
                    status=ScenarioStatus.APPLIED,
                    applied_step=event.step,
                    outcome=p.get("outcome", ""),
                    recipients=p.get("recipients", []),
                )

    def snapshot(self, simulation: Simulation) -> Any:
        return [
            model_to_dict(row, exclude=["id", "simulation"])
            for row in Scenario.objects.filter(simulation=simulation).order_by("number")
        ]
