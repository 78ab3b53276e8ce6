"""Reads of the database that cognition makes: memories, plan rows, object states, places.

A step decides from the state committed before it, so every read here is plain and
read-only; the town's places do not change during a run and are cached per process.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import cache

from django.db import connection
from django.db.models import Case, Q, When

from agents.events import is_idle
from agents.models import Commitment, ObjectState, PlanItem, PlanLevel
from memories.models import Memory, MemoryKind
from world.models import Agent, Location, LocationKind, Simulation
from world.rows import RowReader

IMPORTANT = 6  # the importance from which a memory is news one passes on


@cache
def town_addresses_cached(*, town_id: int) -> frozenset[str]:
    """Every place of the town: worlds, sectors, arenas and objects."""
    return frozenset(Location.objects.filter(town_id=town_id).values_list("address", flat=True))


@cache
def town_arenas_cached(*, town_id: int) -> frozenset[str]:
    """The town's arenas."""
    rows = Location.objects.filter(town_id=town_id, kind=LocationKind.ARENA)
    return frozenset(rows.values_list("address", flat=True))


def memory_descriptions_get(*, ids: list[int]) -> dict[int, str]:
    """Memory id -> description, for the memories a retrieval scored."""
    return dict(Memory.objects.filter(id__in=ids).values_list("id", "description"))


def memory_important_list(*, agent: Agent, k: int, now: datetime) -> list[str]:
    """The agent's `k` most important thoughts and reflections (newest first among
    equals): what it would tell anyone. A happening ahead that it means to go to comes
    first, besides them, as people talk of where they are going. Plans, observations of
    others' doings and the record of conversations are not news."""
    ahead = Commitment.objects.filter(agent=agent, end__gt=now, memory__isnull=False)
    going = ahead.order_by("start", "number").values_list("memory", flat=True).first()
    news = Q(importance__gte=IMPORTANT, kind__in=[MemoryKind.THOUGHT, MemoryKind.REFLECTION])
    rows = Memory.objects.filter(agent=agent)
    if going is None:
        rows = rows.filter(news).order_by("-importance", "-number")
    else:
        going_first = Case(When(number=going, then=0), default=1)
        rows = rows.filter(news | Q(number=going)).order_by(going_first, "-importance", "-number")
    return list(rows.values_list("description", flat=True)[: k + (going is not None)])


def memory_number_of(*, agent: Agent, description: str) -> int | None:
    """The number of the agent's latest memory of that description (a whisper's thought)."""
    rows = Memory.objects.filter(agent=agent, description=description).order_by("-number")
    return rows.values_list("number", flat=True).first()


def memory_last_plan_get(*, agent: Agent) -> str | None:
    """The description of the agent's latest day-plan memory, if any."""
    rows = Memory.objects.filter(agent=agent, kind=MemoryKind.PLAN).order_by("-number")
    return rows.values_list("description", flat=True).first()


# Read for a resident at most steps: fixed statements, not a query built each time.
_BLOCK_CURRENT = RowReader(
    PlanItem,
    where=f"agent_id = %s AND level = '{PlanLevel.HOUR}' AND NOT superseded "
    "AND start <= %s AND start > %s",
    order="start DESC, number DESC LIMIT 1",
)
_BLOCK_ACTIONS = RowReader(
    PlanItem,
    where=f"agent_id = %s AND NOT superseded AND parent_id IN (SELECT id FROM "
    f"{PlanItem._meta.db_table} WHERE agent_id = %s AND number = %s)",
    order="start, number",
)


def plan_block_current(*, agent: Agent, now: datetime) -> PlanItem | None:
    """The agent's latest hour block begun within the last day (it may have ended)."""
    found = _BLOCK_CURRENT([agent.pk, now, now - timedelta(days=1)])
    return found[0] if found else None


def plan_actions_list(*, agent: Agent, block_number: int) -> list[PlanItem]:
    """The actions decomposed from the agent's hour block `block_number`, in time order."""
    return _BLOCK_ACTIONS([agent.pk, agent.pk, block_number])


def object_setters_get(*, simulation: Simulation) -> dict[str, tuple[str, str]]:
    """Object address -> (state, the resident whose action set it; "" when set by a user)."""
    rows = ObjectState.objects.filter(simulation=simulation)
    return {
        address: (state, by)
        for address, state, by in rows.values_list("address", "state", "by_agent")
    }


def object_holder(setters: dict[str, tuple[str, str]], address: str) -> str:
    """The resident whose action holds the object (`setters`: `object_setters_get`): its
    state is not idle and that resident's action set it; "" when nobody's does."""
    state, by = setters.get(address, ("", ""))
    return by if by and not is_idle(state) else ""


def commitments_of_day(*, agent: Agent, since: datetime) -> list[Commitment]:
    """The agent's commitments that start on the day of `since` and end after it, in time
    order (the latest made of two at the same start)."""
    return commitments_ahead_by_agent(nows={agent.pk: since}).get(agent.pk, [])


def commitments_ahead_by_agent(*, nows: dict[int, datetime]) -> dict[int, list[Commitment]]:
    """`commitments_of_day(since=now)` for many agents in one read, each
    at its own `now` (agent id -> now): agent id -> its commitments (none: left out)."""
    if not nows:
        return {}
    earliest, latest = min(nows.values()), max(nows.values())
    start = datetime.combine(earliest.date(), time.min, tzinfo=earliest.tzinfo)
    end = datetime.combine(latest.date(), time.min, tzinfo=latest.tzinfo) + timedelta(days=1)
    rows = Commitment.objects.filter(
        agent_id__in=list(nows), start__gte=start, start__lt=end, end__gt=earliest
    )
    by_agent: dict[int, list[Commitment]] = {}
    for row in rows.order_by("agent_id", "start", "number"):
        by_agent.setdefault(row.agent_id, []).append(row)
    chosen = {pk: commitments_ahead_of(by_agent.get(pk, []), now) for pk, now in nows.items()}
    return {pk: found for pk, found in chosen.items() if found}


def commitments_of_day_by_agent(
    *, agent_ids: list[int], midnight: datetime
) -> dict[int, list[Commitment]]:
    """Agent id -> its commitments that start on the day from `midnight`, by start and
    number (one read for all)."""
    rows = Commitment.objects.filter(
        agent_id__in=agent_ids, start__gte=midnight, start__lt=midnight + timedelta(days=1)
    )
    found: dict[int, list[Commitment]] = {pk: [] for pk in agent_ids}
    for row in rows.order_by("agent_id", "start", "number"):
        found[row.agent_id].append(row)
    return found


def commitments_ahead_of(rows: list[Commitment], now: datetime) -> list[Commitment]:
    """Of one agent's commitments (by start and number), those of `now`'s day that end
    after it, in time order; of two at one start, the latest made."""
    day = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
    chosen: dict[datetime, Commitment] = {}
    for row in rows:
        if day <= row.start < day + timedelta(days=1) and row.end > now:
            chosen[row.start] = row
    return list(chosen.values())


def commitments_unplanned(
    *,
    agent: Agent,
    now: datetime,
    ahead: list[Commitment] | None = None,
    cited: set[int] | None = None,
) -> list[Commitment]:
    """Today's commitments still ahead that no live plan row cites: made since the day
    was planned, so the rest of the day must be planned again. `ahead`: the agent's
    commitments of the day from `now`, and `cited`: the memories its live plan rows cite,
    when read already (`commitments_ahead_by_agent`, `plan_citations_by_agent`)."""
    if ahead is None:
        ahead = commitments_of_day(agent=agent, since=now)
    if not ahead:
        return []
    if cited is None:
        cited = plan_citations_by_agent(agent_ids=[agent.pk]).get(agent.pk, set())
    return [c for c in ahead if c.memory is not None and c.memory not in cited]


def plan_citations_by_agent(*, agent_ids: list[int]) -> dict[int, set[int]]:
    """Agent id -> the memories (numbers) its live plan rows cite: the commitments its
    plan keeps (one read for all; agents whose plan cites none are left out)."""
    found: dict[int, set[int]] = {}
    if not agent_ids:
        return found
    with connection.cursor() as cursor:  # at every step of committed residents: no ORM
        cursor.execute(_CITED_SQL, [agent_ids])
        for agent_id, memory in cursor.fetchall():
            found.setdefault(agent_id, set()).add(memory)
    return found


_CITED_SQL = f"""
SELECT DISTINCT agent_id, source_memory FROM {PlanItem._meta.db_table}
WHERE agent_id = ANY(%s) AND source_memory IS NOT NULL AND NOT superseded
"""


def plan_blocks_of_day(*, agent: Agent, day: date, since: datetime) -> list[PlanItem]:
    """The agent's live hour blocks of `day` that start at or after `since`."""
    start = datetime.combine(day, time.min, tzinfo=since.tzinfo)
    rows = PlanItem.objects.filter(
        agent=agent,
        level=PlanLevel.HOUR,
        superseded=False,
        start__gte=max(start, since),
        start__lt=start + timedelta(days=1),
    )
    return list(rows.order_by("start", "number"))


def day_recollection(*, agent: Agent, day: date, tz: object) -> dict[str, list[str]]:
    """What the agent did, whom it met and what it learned on `day`, from its memories:
    for the next morning's plan."""
    start = datetime.combine(day, time.min, tzinfo=tz)  # type: ignore[arg-type]
    rows = Memory.objects.filter(
        agent=agent, created__gte=start, created__lt=start + timedelta(days=1)
    )
    met = sorted(
        set(
            rows.filter(kind=MemoryKind.CONVERSATION, predicate="talked with").values_list(
                "object", flat=True
            )
        )
    )
    learned = list(
        rows.filter(kind=MemoryKind.THOUGHT, importance__gte=IMPORTANT)
        .order_by("-importance", "number")
        .values_list("description", flat=True)[:3]
    )
    planned = list(
        rows.filter(kind=MemoryKind.PLAN)
        .order_by("number")
        .values_list("description", flat=True)[:1]
    )
    return {"met": met, "learned": learned, "planned": planned}


def commitment_exists(*, agent: Agent, start: datetime, address: str) -> bool:
    return Commitment.objects.filter(agent=agent, start=start, address=address).exists()
