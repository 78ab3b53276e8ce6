"""People in the town: who may join a simulation, who may move and speak for which
resident, and joining (as a newcomer or by taking over a resident) and leaving.

The owner may act for any resident (the REST controls need no joining); a guest, someone
the owner shares the simulation with (`Simulation.share`), only for the resident they
brought in. A `Player` row says who plays whom."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from runtime.controls.common import ControlConflict, ControlRefused, context_now
from runtime.controls.public import agent_leave
from runtime.controls.stepping_in import (
    Identity,
    agent_take_control,
    in_sight,
    newcomer_create,
)
from runtime.models import Player
from world.models import Agent, Simulation


class NotYours(ControlRefused):
    """The user may not act for this resident (a 403)."""


def may_control(*, user: User, simulation: Simulation, agent: Agent) -> bool:
    """Whether `user` may move and speak for `agent`: the owner for anyone, a guest for
    the resident they play."""
    if simulation.owner_id == user.pk:
        return True
    return Player.objects.filter(simulation=simulation, agent=agent, user=user).exists()


def control_check(*, user: User, simulation: Simulation, agent: Agent) -> None:
    """NotYours unless `user` may act for `agent`."""
    if not may_control(user=user, simulation=simulation, agent=agent):
        raise NotYours(f"{agent.name} is not yours to play: you may act only for your own")


def player_join(
    *,
    simulation: Simulation,
    user: User,
    name: str,
    about: str = "",
    address: str | None = None,
    tile: tuple[int, int] | None = None,
) -> Agent:
    """`user` steps in as a newcomer called `name` who `about` describes (a line about
    themselves), at a place or a tile (see `newcomer_create`), and plays it. A guest plays
    one resident at a time (ControlConflict for a second); the owner any number."""
    if simulation.owner_id != user.pk:
        playing = Player.objects.filter(simulation=simulation, user=user).first()
        if playing is not None:
            raise ControlConflict(
                f"you play {playing.agent.name} in this town already: leave first"
            )
    with transaction.atomic():
        agent = newcomer_create(
            simulation=simulation,
            name=name,
            identity=Identity(currently=about),
            address=address,
            tile=tile,
        )
        Player.objects.create(simulation=simulation, user=user, agent=agent, newcomer=True)
    return agent


def player_take_over(*, simulation: Simulation, user: User, agent: Agent) -> Agent:
    """The owner takes over a resident and plays it; ControlConflict if someone else
    plays it or it has left."""
    if simulation.owner_id != user.pk:
        raise NotYours("only the simulation's owner may take over its residents")
    if agent.left_step is not None:
        raise ControlConflict(f"{agent.name} left the town at step {agent.left_step}")
    played = Player.objects.filter(agent=agent).select_related("user").first()
    if played is not None and played.user_id != user.pk:
        raise ControlConflict(f"{agent.name} is played by {played.user.get_username()}")
    with transaction.atomic():
        agent = agent_take_control(simulation=simulation, agent=agent, user_controlled=True)
        try:
            with transaction.atomic():
                Player.objects.get_or_create(
                    agent=agent,
                    defaults={"simulation": simulation, "user": user, "newcomer": False},
                )
        except IntegrityError:  # taken by someone else in between
            raise ControlConflict(f"{agent.name} is played by someone else") from None
    return agent


def player_leave(*, simulation: Simulation, user: User, agent: Agent) -> Agent:
    """`user` leaves the town: a newcomer they brought in leaves it (its row and history
    stay; replay draws it only between its arrival and leaving), a resident they took over
    goes back to its own plan, as does one the owner took over without joining (the REST
    `control`). NotYours if `user` may not act for it; ControlConflict if nobody plays it."""
    control_check(user=user, simulation=simulation, agent=agent)
    player = Player.objects.filter(agent=agent).first()
    if player is None and not agent.user_controlled:
        raise ControlConflict(f"nobody plays {agent.name}")
    with transaction.atomic():
        if player is not None and player.newcomer:
            agent_leave(simulation=simulation, agent=agent)
        else:
            agent_take_control(simulation=simulation, agent=agent, user_controlled=False)
        Player.objects.filter(agent=agent).delete()
    agent.refresh_from_db()
    return agent


def share_set(
    *, simulation: Simulation, share: str, guests: Sequence[str] | None = None
) -> Simulation:
    """The owner decides who may join: `share` (a `Share`), and the invited users by
    username (None: unchanged). ControlRefused (field `guests`) for an unknown username
    or the owner's own; nothing changes then. Players already in stay until they leave."""
    with transaction.atomic():
        if guests is not None:
            users = {u.get_username(): u for u in User.objects.filter(username__in=guests)}
            unknown = [name for name in guests if name not in users]
            if unknown:
                raise ControlRefused(f"no user is called {unknown[0]!r}", field="guests")
            if simulation.owner.get_username() in users:
                raise ControlRefused("the owner needs no invitation", field="guests")
            simulation.guests.set(users.values())
        simulation.share = share
        simulation.save(update_fields=["share", "updated_at"])
    return simulation


def sight_of(*, simulation: Simulation, agent: Agent) -> list[Agent]:
    """Who `agent` can talk to now (`in_sight`); nobody once it has left."""
    context = context_now(simulation)
    me = context.agents.get(agent.name)
    return in_sight(context, me) if me is not None else []


def players_of(*, simulation: Simulation) -> list[Player]:
    """Who plays whom in the simulation, earliest first."""
    return list(Player.objects.filter(simulation=simulation).select_related("user", "agent"))
