"""The projection of what residents planned and set: plan trees, object states and
commitments (what they said: agents/projections/talk.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max
from django.forms.models import model_to_dict

from agents.events import (
    AGENT_COMMITTED,
    OBJECT_STATE,
    PLAN_MADE,
    PLAN_REVISED,
)
from agents.models import Commitment, ObjectState, PlanItem, PlanLevel
from memories.models import Memory
from world.models import Agent, Event, Simulation


def plan_revision_drops(item: PlanItem, since: datetime, rest_of_day: bool) -> bool:
    """Whether a re-plan from `since` drops `item`. A reaction re-plans from now: actions
    still under way or ahead are dropped and the current block is decomposed again when the
    reaction is over; a new schedule for the rest of the day drops the hour blocks and
    actions starting from then on, for a day, too. (Also what the plan at an earlier step
    is read by: agents.selectors.plan_tree.)"""
    start = item.start
    if rest_of_day and item.level != PlanLevel.DAY and since <= start < since + timedelta(days=1):
        return True
    return (
        item.level == PlanLevel.ACTION
        and start >= since - timedelta(hours=1)
        and start + timedelta(minutes=item.duration_minutes) > since
    )


class CognitionProjection:
    """Plans, object states and commitments."""

    in_log_order = False

    name = "cognition"
    order = 30
    kinds = frozenset(
        {
            PLAN_MADE,
            PLAN_REVISED,
            OBJECT_STATE,
            AGENT_COMMITTED,
        }
    )

    def reset(self, simulation: Simulation) -> None:
        PlanItem.objects.filter(simulation=simulation).delete()
        ObjectState.objects.filter(simulation=simulation).delete()
        Commitment.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == PLAN_MADE:
                self._plan(simulation, event)
            elif event.kind == AGENT_COMMITTED:
                self._commitment(simulation, event)
            elif event.kind == PLAN_REVISED:
                since = datetime.fromisoformat(event.payload["from"])
                rest_of_day = bool(event.payload.get("rest_of_day"))
                standing = PlanItem.objects.filter(
                    simulation=simulation,
                    agent__name=event.agent,
                    level__in=[PlanLevel.HOUR, PlanLevel.ACTION],
                    superseded=False,
                    start__gte=since - timedelta(hours=1),
                ).only("level", "start", "duration_minutes")
                dropped = [
                    item.pk for item in standing if plan_revision_drops(item, since, rest_of_day)
                ]
                PlanItem.objects.filter(pk__in=dropped).update(superseded=True)
            elif event.kind == OBJECT_STATE:
                self._object(simulation, event)

    def _plan(self, simulation: Simulation, event: Event) -> None:
        """Items in order; `parent` is an existing item's number, `parent_index` one of
        this event's items."""
        agent = Agent.objects.get(simulation=simulation, name=event.agent)
        top = PlanItem.objects.filter(agent=agent).aggregate(top=Max("number"))["top"] or 0
        parents = {
            item.number: item
            for item in PlanItem.objects.filter(
                agent=agent,
                number__in=[i["parent"] for i in event.payload["items"] if i.get("parent")],
            )
        }
        blocks: dict[str, PlanItem | None] = {}  # parent_start -> that hour block

        def block(start: str) -> PlanItem | None:
            if start not in blocks:
                blocks[start] = (
                    PlanItem.objects.filter(
                        agent=agent,
                        level=PlanLevel.HOUR,
                        superseded=False,
                        start=datetime.fromisoformat(start),
                    )
                    .order_by("-number")
                    .first()
                )
            return blocks[start]

        rows: list[PlanItem] = []
        for offset, item in enumerate(event.payload["items"], start=1):
            parent = parents.get(item.get("parent") or 0)
            if item.get("parent_start"):
                parent = block(item["parent_start"])
            spo = item.get("spo") or ["", "", ""]
            rows.append(
                PlanItem(
                    simulation=simulation,
                    agent=agent,
                    number=top + offset,
                    level=item["level"],
                    parent=parent,
                    description=item["description"],
                    address=item.get("address", ""),
                    start=datetime.fromisoformat(item["start"]),
                    duration_minutes=item["duration_minutes"],
                    emoji=item.get("emoji", ""),
                    subject=spo[0],
                    predicate=spo[1],
                    object=spo[2],
                    source_memory=item.get("source_memory"),
                )
            )
        # Insert in waves, each row once the item it names by `parent_index` has its id.
        within = [item.get("parent_index") for item in event.payload["items"]]
        pending = list(range(len(rows)))
        while pending:
            ready = [i for i in pending if within[i] is None or rows[within[i]].pk is not None]
            for i in ready:
                if within[i] is not None:
                    rows[i].parent = rows[within[i]]
            PlanItem.objects.bulk_create([rows[i] for i in ready])
            pending = [i for i in pending if i not in ready]

    def _commitment(self, simulation: Simulation, event: Event) -> None:
        """The commitment, citing the latest memory of its thought (made the same step, or
        earlier: a whisper)."""
        p = event.payload
        agent = Agent.objects.get(simulation=simulation, name=event.agent)
        memory = (
            Memory.objects.filter(agent=agent, description=p["memory"], created__lte=event.sim_time)
            .order_by("-number")
            .values_list("number", flat=True)
            .first()
        )
        top = Commitment.objects.filter(agent=agent).aggregate(top=Max("number"))["top"] or 0
        Commitment.objects.create(
            simulation=simulation,
            agent=agent,
            number=top + 1,
            what=p["what"],
            address=p["address"],
            start=datetime.fromisoformat(p["start"]),
            end=datetime.fromisoformat(p["end"]),
            memory=memory,
            step=event.step,
        )

    def _object(self, simulation: Simulation, event: Event) -> None:
        address, state = event.payload["address"], event.payload["state"]
        if state in ("", "idle"):
            ObjectState.objects.filter(simulation=simulation, address=address).delete()
            return
        ObjectState.objects.update_or_create(
            simulation=simulation,
            address=address,
            defaults={"state": state, "by_agent": event.agent},
        )

    def snapshot(self, simulation: Simulation) -> Any:
        plans = [
            model_to_dict(item, exclude=["id", "simulation", "agent", "parent"])
            | {"agent": item.agent.name, "parent": item.parent.number if item.parent else None}
            for item in PlanItem.objects.filter(simulation=simulation)
            .select_related("agent", "parent")
            .order_by("agent__name", "number")
        ]
        objects = list(
            ObjectState.objects.filter(simulation=simulation)
            .order_by("address")
            .values("address", "state", "by_agent")
        )
        commitments = list(
            Commitment.objects.filter(simulation=simulation)
            .order_by("agent__name", "number")
            .values("agent__name", "number", "what", "address", "start", "end", "memory", "step")
        )
        return {
            "plans": plans,
            "objects": objects,
            "commitments": commitments,
        }
