"""Reads of what residents plan and say: a sim day's plan tree, and conversations."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Func, IntegerField, QuerySet
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Coalesce

from agents.events import PLAN_MADE, PLAN_REVISED
from agents.models import Commitment, Conversation, PlanItem, PlanLevel
from agents.projections.records import plan_revision_drops
from world.addresses import Address
from world.models import Agent, Event, Simulation


@dataclass
class PlanNode:
    """A plan item with the items decomposed from it, in time order."""

    item: PlanItem
    children: list[PlanNode] = field(default_factory=list)


def sim_day_bounds(day: date) -> tuple[datetime, datetime]:
    """The sim day as [midnight, next midnight); sim time is kept in UTC."""
    midnight = datetime.combine(day, time.min, tzinfo=UTC)
    return midnight, midnight + timedelta(days=1)


def plan_tree(
    *, agent: Agent, day: date, include_superseded: bool = False, step: int | None = None
) -> list[PlanNode]:
    """The agent's plan for a sim day: day items > hour blocks > actions, each in time order.

    One query: an item belongs to the day its root (the day item above it) starts on, so an
    action after midnight of a block begun the evening before stays with that evening.
    Without `include_superseded` the actions a re-plan dropped are left out. With `step`,
    the plan as it stood at that step: the items made by then, dropped or not as then.
    """
    start, end = sim_day_bounds(day)
    items: list[PlanItem] = list(
        PlanItem.objects.filter(agent=agent)
        .alias(root_start=Coalesce("parent__parent__start", "parent__start", "start"))
        .filter(root_start__gte=start, root_start__lt=end)
        .order_by("start", "number")
    )
    if step is not None:
        items = _plan_at_step(agent=agent, items=items, step=step)
    if not include_superseded:
        items = [item for item in items if not item.superseded]
    nodes = {item.pk: PlanNode(item) for item in items}
    roots: list[PlanNode] = []
    for node in nodes.values():
        if node.item.parent_id is None:
            roots.append(node)
        elif node.item.parent_id in nodes:
            nodes[node.item.parent_id].children.append(node)
        # else: under an item that was left out, so left out too.
    return roots


def _plan_at_step(*, agent: Agent, items: list[PlanItem], step: int) -> list[PlanItem]:
    """`items` as they stood at `step`, from the agent's plan.made and plan.revised events up
    to it: those made since are left out, and each is superseded only if a re-plan by then
    dropped it (the projection's rule; the rows say only whether one ever did)."""
    log = Event.objects.filter(
        simulation_id=agent.simulation_id,
        agent=agent.name,
        kind__in=(PLAN_MADE, PLAN_REVISED),
        step__lte=step,
    ).order_by("seq")
    made = 0  # rows are numbered in log order: the items made so far are 1..made
    revisions: list[tuple[int, datetime, bool]] = []
    for kind, count, since, rest_of_day in log.values_list(
        "kind",
        Func(
            KeyTransform("items", "payload"),
            function="jsonb_array_length",
            output_field=IntegerField(),
        ),
        KeyTextTransform("from", "payload"),
        KeyTextTransform("rest_of_day", "payload"),
    ):
        if kind == PLAN_MADE:
            made += count or 0
        else:
            revisions.append((made, datetime.fromisoformat(since), rest_of_day == "true"))
    standing = [item for item in items if item.number <= made]
    for item in standing:  # rows of this read only, never saved
        item.superseded = any(
            item.number <= made_then and plan_revision_drops(item, since, rest_of_day)
            for made_then, since, rest_of_day in revisions
        )
    return standing


def plan_items_current(*, roots: list[PlanNode], now: datetime) -> set[int]:
    """Ids of the items (not superseded) under way at `now`, at every level."""
    current: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        item = node.item
        if not item.superseded and item.start <= now < item.start + timedelta(
            minutes=item.duration_minutes
        ):
            current.add(item.pk)
        stack.extend(node.children)
    return current


def conversation_list(
    *, simulation: Simulation, participant: str | None = None
) -> QuerySet[Conversation]:
    """A simulation's conversations, newest first; with `participant`, only theirs."""
    conversations = Conversation.objects.filter(simulation=simulation)
    if participant:
        conversations = conversations.filter(participants__contains=[participant])
    return conversations.order_by("-number")


def conversation_get(*, simulation: Simulation, number: int) -> Conversation:
    """Raises Conversation.DoesNotExist."""
    return Conversation.objects.get(simulation=simulation, number=number)


PLAN_TOLD_DAYS = 7  # the commitments a resident tells of: within a week


def plan_line(*, start: datetime, end: datetime, what: str, address: str) -> str:
    """A plan item as a resident tells it: "YYYY-MM-DD HH:MM-HH:MM: what, at <arena> of
    <sector>" (the offline interview and intention rules read it so)."""
    place = Address.parse(address) if address else None
    where = ""
    if place is not None and place.sector:
        where = f", at {place.arena} of {place.sector}" if place.arena else f", at {place.sector}"
    return f"{start:%Y-%m-%d %H:%M}-{end:%H:%M}: {what}{where}"


def plan_told(*, agent: Agent, now: datetime) -> list[str]:
    """What a resident can tell of its plan when asked: its commitments from now on (a
    week ahead), then the live hour blocks of the latest day it planned, as lines
    "YYYY-MM-DD HH:MM-HH:MM: what, at <arena> of <sector>"."""
    lines = [
        plan_line(start=c.start, end=c.end, what=c.what, address=c.address)
        for c in Commitment.objects.filter(
            agent=agent, end__gt=now, start__lt=now + timedelta(days=PLAN_TOLD_DAYS)
        ).order_by("start", "number")
    ]
    blocks = PlanItem.objects.filter(
        agent=agent, level=PlanLevel.HOUR, superseded=False, start__lte=now + timedelta(days=1)
    )
    latest = blocks.order_by("-start").values_list("start", flat=True).first()
    if latest is not None:
        day_start, day_end = sim_day_bounds(latest.date())
        for item in blocks.filter(start__gte=day_start, start__lt=day_end).order_by(
            "start", "number"
        ):
            end = item.start + timedelta(minutes=item.duration_minutes)
            lines.append(
                plan_line(start=item.start, end=end, what=item.description, address=item.address)
            )
    return lines
