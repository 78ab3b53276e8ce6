"""Acting: every step, walk on, carry on, or start the next planned action (with the path
to its place and the state it gives the object).

An object's state and its occupancy change where the object is: a resident claims a
single-occupancy object, and gives it the action's state, when it reaches it (finding it
taken, it waits there a minute); it gives it back when it leaves. So what a resident does
to a place is seen only near that place, which lets residents far apart run ahead of
each other (docs/architecture.md, "Residents that do not wait for each other")."""

from __future__ import annotations

import math
from datetime import timedelta

from agents.cognition.blocks import Block
from agents.cognition.mind import Mind
from agents.cognition.places import single_occupancy
from agents.cognition.planning import NextAction, current_block, decompose, decompose_ahead
from agents.cognition.selectors import object_holder, plan_actions_list
from agents.events import IDLE, agent_acting, agent_moved, object_state
from world.addresses import Address
from world.paths import NotWalkable, UnknownAddress, Unreachable, path_to_location

OCCUPIED_WAIT_MINUTES = 1  # someone uses a single-occupancy object: look again after a minute


def act(mind: Mind, replan: bool = False) -> None:
    """Walk one tile, or carry on until the action ends, or start the next one; `replan`
    (a new thought) stops the walk or the action and decomposes the hour afresh."""
    agent = mind.agent
    if agent.chatting_with and agent.busy_until_step > mind.step:
        return
    if agent.path and not replan:
        mind.emit(agent_moved(agent=mind.name, tile=agent.path[0]))
        if len(agent.path) == 1:
            arrive(mind)
        return
    if mind.step < agent.busy_until_step and not replan:
        return
    block = current_block(mind)
    if block is None:
        return
    if agent.action_address and setter_of(mind, agent.action_address) == mind.name:
        # The object it leaves goes back to idle.
        mind.emit(object_state(address=agent.action_address, state=IDLE, agent=mind.name))
    if block.sleeping:
        sleeping = NextAction(
            "sleeping", block.end, "bed", "😴", [mind.name, "is", "sleeping"], "in use"
        )
        start_action(mind, block, sleeping)
        return
    action = next_action(mind, block, fresh=replan)
    if action is not None:
        start_action(mind, block, action)


def next_action(mind: Mind, block: Block, fresh: bool = False) -> NextAction | None:
    """The planned action covering now, decomposing the block from now if needed."""
    rows = []
    if block.number is not None and not fresh:
        rows = plan_actions_list(agent=mind.agent, block_number=block.number)
        for row in rows:
            end = row.start + timedelta(minutes=row.duration_minutes)
            if row.start <= mind.now < end:
                spo = [row.subject, row.predicate, row.object]
                return NextAction(row.description, end, row.address, row.emoji, spo, "")
    # Decomposed, and nothing covers now: from now (the whole block would answer the same).
    return decompose(mind, block, from_now=fresh or bool(rows))


def setter_of(mind: Mind, address: str) -> str:
    """The resident whose action holds the object ("" if none, or a user set it)."""
    return object_holder(mind.context.object_setters, address)


def taken(mind: Mind, address: str) -> bool:
    """A single-occupancy object someone else is using."""
    by = setter_of(mind, address)
    return bool(by) and by != mind.name and single_occupancy(address)


def arrive(mind: Mind) -> None:
    """The last tile of the walk: the object becomes the action's state, or, when someone
    else uses it, the resident waits there a minute and then looks again."""
    agent = mind.agent
    address = agent.action_address
    if not agent.action_object_state or not Address.parse(address).is_object:
        return
    if taken(mind, address):
        _wait_for(mind, address)
        return
    mind.emit(object_state(address=address, state=agent.action_object_state, agent=mind.name))


def _wait_for(mind: Mind, address: str) -> None:
    """Wait by the object (in its arena, not using it) a minute, then look again."""
    place = Address.parse(address)
    steps = max(1, math.ceil(OCCUPIED_WAIT_MINUTES * 60 / mind.simulation.sec_per_step))
    mind.emit(
        agent_acting(
            agent=mind.name,
            action=f"waiting to use the {place.leaf}",
            emoji="⏳",
            address=place.arena_address,
            spo=[mind.name, "waits for", place.leaf],
            start_step=mind.step,
            end_step=mind.step + steps,
        )
    )


def start_action(mind: Mind, block: Block, action: NextAction) -> None:
    """Head for the action's place and do it until its end; the object there takes the
    action's state when the resident arrives (at once if it is there already)."""
    address = mind.places.resolve(block.sector, block.arena, action.address)
    if taken(mind, address):  # another of its kind there that is free ("second bed")
        address = next((a for a in mind.places.alike(address) if not taken(mind, a)), address)
    try:
        path = path_to_location(town=mind.context.town, start=mind.agent.tile, address=address)
    except (Unreachable, UnknownAddress, NotWalkable):
        path = [mind.agent.tile]
    there = len(path) <= 1
    if there and taken(mind, address):
        _wait_for(mind, address)
        return
    seconds = mind.simulation.sec_per_step
    end_step = mind.step + max(1, math.ceil((action.end - mind.now).total_seconds() / seconds))
    state = action.object_state if Address.parse(address).is_object else ""
    mind.emit(
        agent_acting(
            agent=mind.name,
            action=action.description,
            emoji=action.emoji,
            address=address,
            spo=action.spo,
            start_step=mind.step,
            end_step=end_step,
            path=path[1:],
            object_state=state,
        )
    )
    if state and there:
        mind.emit(object_state(address=address, state=state, agent=mind.name))
    # The next block's actions, an hour ahead (nothing waits for them).
    decompose_ahead(mind, block)
