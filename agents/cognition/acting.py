"""Acting: every step, walk on, carry on, or start the next planned action (with the path
to its place and the state it gives the object)."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta

from world.addresses import Address
from world.paths import NotWalkable, UnknownAddress, Unreachable, path_to_location

from ..events import IDLE, agent_acting, agent_moved, object_state
from .mind import Mind
from .places import single_occupancy
from .planning import Block, NextAction, current_block, decompose
from .selectors import plan_actions_list

OCCUPIED_WAIT_MINUTES = 1  # someone uses a single-occupancy object: look again after a minute


def act(mind: Mind, replan: bool = False) -> None:
    """Walk one tile, or carry on until the action ends, or start the next one; `replan`
    (a new thought) stops the walk or the action and decomposes the hour afresh."""
    agent = mind.agent
    if agent.chatting_with and agent.busy_until_step > mind.step:
        return
    if agent.path and not replan:
        mind.emit(agent_moved(agent=mind.name, tile=agent.path[0]))
        return
    if mind.step < agent.busy_until_step and not replan:
        return
    block = current_block(mind)
    if block is None:
        return
    if agent.action_address and mind.context.object_states.get(agent.action_address):
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
    if block.number is not None and not fresh:
        for row in plan_actions_list(agent=mind.agent, block_number=block.number):
            end = row.start + timedelta(minutes=row.duration_minutes)
            if row.start <= mind.now < end:
                spo = [row.subject, row.predicate, row.object]
                return NextAction(row.description, end, row.address, row.emoji, spo, "")
    return decompose(mind, block)


def start_action(mind: Mind, block: Block, action: NextAction) -> None:
    """Head for the action's place and do it until its end; a single-occupancy object in
    someone else's use makes the agent wait where it is instead."""
    address = mind.places.resolve(block.sector, block.arena, action.address)
    occupant = mind.context.occupants.get(address)
    if occupant and occupant != mind.name and single_occupancy(address):
        action = replace(
            action,
            description=f"waiting to use the {Address.parse(address).leaf}",
            end=mind.now + timedelta(minutes=OCCUPIED_WAIT_MINUTES),
            emoji="⏳",
            object_state="",
        )
        address = mind.here or address
    try:
        path = path_to_location(town=mind.context.town, start=mind.agent.tile, address=address)
    except (Unreachable, UnknownAddress, NotWalkable):
        path = [mind.agent.tile]
    seconds = mind.simulation.sec_per_step
    end_step = mind.step + max(1, math.ceil((action.end - mind.now).total_seconds() / seconds))
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
        )
    )
    if action.object_state and Address.parse(address).is_object:
        mind.emit(object_state(address=address, state=action.object_state, agent=mind.name))
