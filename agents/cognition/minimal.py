"""Minimal cognition: walk to known places along real paths, perceive who is near.

A stand-in that drives the tick engine until the paper's cognition replaces it: each
resident picks a place it knows (from its spatial memory), walks there one tile per step,
stays a while, and records the residents it sees within its vision radius in its arena.
"""

from __future__ import annotations

from agents.cognition import StepContext
from agents.cognition.selectors import town_arenas_cached
from agents.events import IDLE, agent_arrived, agent_headed, agent_moved, agent_perceived
from world.addresses import address_format
from world.eventlog import EventDraft
from world.models import Agent, Town
from world.paths import Unreachable, path_to_location

STAY_STEPS = (30, 180)  # 5 to 30 sim minutes at 10 s a step


def known_arenas(town: Town, agent: Agent) -> list[str]:
    """Arenas in the agent's spatial memory that exist in the town, in a fixed order."""
    real = town_arenas_cached(town_id=town.pk)
    found = [
        address_format(world, sector, arena)
        for world, sectors in agent.spatial_memory.items()
        for sector, arenas in sectors.items()
        for arena in arenas
    ]
    return sorted(address for address in set(found) if address in real)


class MinimalCognition:
    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        events = self._act(context, agent)
        seen = self._perceive(context, agent)
        if seen:
            events.append(agent_perceived(agent=agent.name, observations=seen))
        return events

    def _act(self, context: StepContext, agent: Agent) -> list[EventDraft]:
        if agent.path:
            events = [agent_moved(agent=agent.name, tile=agent.path[0])]
            if len(agent.path) == 1:
                stay = context.rng(agent.name).randint(*STAY_STEPS)
                arrived = agent_arrived(
                    agent=agent.name,
                    action=f"idle at {agent.destination}",
                    busy_until_step=context.step + stay,
                )
                events.append(arrived)
            return events
        if context.step < agent.busy_until_step or agent.user_controlled:
            return []  # a user-controlled resident goes only where the user sends it
        return self._head_somewhere(context, agent)

    def _head_somewhere(self, context: StepContext, agent: Agent) -> list[EventDraft]:
        here = context.arena_at(agent.tile)
        choices = [a for a in known_arenas(context.town, agent) if a != here]
        rng = context.rng(agent.name)
        rng.shuffle(choices)
        for destination in choices:
            try:
                path = path_to_location(town=context.town, start=agent.tile, address=destination)
            except Unreachable:
                continue
            if len(path) > 1:
                headed = agent_headed(
                    agent=agent.name,
                    destination=destination,
                    path=path[1:],
                    action=f"walking to {destination}",
                )
                return [headed]
        return []

    def _perceive(self, context: StepContext, agent: Agent) -> list[str]:
        """Residents and objects in the same arena within the vision radius, nearest first."""
        here = context.arena_at(agent.tile)
        if not here:
            return []
        near = []
        radius = agent.vision_radius
        for x, y, name in context.objects_by_arena.get(here, []):
            if max(abs(x - agent.tile_x), abs(y - agent.tile_y)) <= radius:
                dx, dy = x - agent.tile_x, y - agent.tile_y
                near.append((dx * dx + dy * dy, name, IDLE))
        for other in context.agents_by_arena.get(here, []):
            if other.name == agent.name:
                continue
            dx, dy = abs(other.tile_x - agent.tile_x), abs(other.tile_y - agent.tile_y)
            if max(dx, dy) <= agent.vision_radius:  # agents_by_arena: all in `here`
                near.append((dx * dx + dy * dy, other.name, other.action or f"in {here}"))
        near.sort()
        attended: list[str] = []
        for _, name, action in near:  # nearest first, one observation per thing
            observation = f"{name} is {action}"
            if observation not in attended:
                attended.append(observation)
        recent = set(agent.recent_observations)
        return [o for o in attended[: agent.attention_bandwidth] if o not in recent]
