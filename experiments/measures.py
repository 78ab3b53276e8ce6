"""What one run measured: each named fact's diffusion (its holders at the span's end and over
sim time), each named event's attendance, the network's density, conversations held, and
the model calls, tokens and money it cost (evaluations.emergence, llm.selectors)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from agents.events import CONVERSATION_HELD
from evaluations.emergence import emergence_measure
from evaluations.named import measures_resolve
from llm.selectors import model_call_summary
from world.models import Event, Simulation

# The measures every run has, beside those of the named facts and events.
CALLS, TOKENS, MONEY = "model calls", "tokens", "money (USD)"
DENSITY, CONVERSATIONS = "network density", "conversations"


def fact_measure(text: str) -> str:
    return f"diffusion: {text}"


def run_measure(*, simulation: Simulation, spec: dict[str, Any], from_step: int) -> dict[str, Any]:
    """{"values": {measure: number}, "curves": {fact: [[hours, holders], ...]}, "residents"}:
    curves from the run's own start (`from_step`: 0, or the fork's step) to its end, a point
    every `every_minutes` of sim time."""
    named = measures_resolve(simulation, facts=spec.get("facts"), events=spec.get("events"))
    result = emergence_measure(simulation=simulation, facts=named.facts, events=named.events)
    values: dict[str, float] = {}
    curves: dict[str, list[list[float]]] = {}
    start = simulation.sim_time_at(from_step)
    every = timedelta(minutes=spec.get("every_minutes", 60))
    for news in result["news"]:
        values[fact_measure(news["fact"])] = news["holders"]
        heard = sorted(
            datetime.strptime(r["first_heard"], "%Y-%m-%d %H:%M").replace(
                tzinfo=simulation.start_time.tzinfo
            )
            for r in news["residents"].values()
        )
        curves[news["fact"]] = _curve(heard, start, simulation.sim_time, every)
    for event in result["events"]:
        values[f"came: {event['event']}"] = event["came"]
        values[f"committed: {event['event']}"] = event["committed"]
    values[DENSITY] = result["network_density"]["end"]["density"]
    values[CONVERSATIONS] = Event.objects.filter(
        simulation=simulation, kind=CONVERSATION_HELD, step__gt=from_step
    ).count()
    totals = model_call_summary(simulation=simulation)["totals"]
    values[CALLS] = totals["calls"]
    values[TOKENS] = totals["tokens"]
    values[MONEY] = float(totals["cost"])
    residents = simulation.agents.count()
    return {"values": values, "curves": curves, "residents": residents, "step": simulation.step}


def _curve(
    heard: list[datetime], start: datetime, end: datetime, every: timedelta
) -> list[list[float]]:
    """Holders (the source excluded) at each time from `start` to `end`."""
    points: list[list[float]] = []
    at = start
    while True:
        at = min(at, end)
        held = sum(1 for t in heard if t <= at)
        points.append([round((at - start).total_seconds() / 3600, 4), held])
        if at >= end:
            return points
        at += every
