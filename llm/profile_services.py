"""Writes and reads of model profiles and of a simulation's routes to them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet

from world.models import Simulation, SimulationStatus

from .models import ModelProfile, ModelRoute, ModelUsage
from .profiles import ROUTE_GROUPS, TASK_GROUPS
from .services import model_budget_money_set
from .tasks import task_get


class ProfileNotAllowed(PermissionError):
    """Only staff share a profile; only its owner changes it."""


class SimulationRunning(RuntimeError):
    """A running simulation's profiles and money budget cannot change."""


def profiles_visible(*, user: User) -> QuerySet[ModelProfile]:
    """The profiles `user` may use: its own and those staff shared."""
    return ModelProfile.objects.filter(Q(owner_id=user.pk) | Q(shared=True))


def profile_save(*, user: User, profile: ModelProfile | None = None, **fields: Any) -> ModelProfile:
    """Create (no `profile`) or change a profile of `user`'s."""
    if fields.get("shared") and not user.is_staff:
        raise ProfileNotAllowed("only staff can share a profile")
    if profile is None:
        profile = ModelProfile(owner_id=user.pk)
    elif profile.owner_id != user.pk:
        raise ProfileNotAllowed("only its owner can change a profile")
    for name, value in fields.items():
        setattr(profile, name, value)
    profile.full_clean()
    profile.save()
    return profile


def profile_delete(*, user: User, profile: ModelProfile) -> None:
    if profile.owner_id != user.pk:
        raise ProfileNotAllowed("only its owner can delete a profile")
    if profile.routes.exists():
        raise ProfileNotAllowed("a simulation routes calls to this profile")
    profile.delete()


def route_group_valid(group: str) -> bool:
    """A route names the residents, a task group, or one task."""
    if group in ROUTE_GROUPS:
        return True
    try:
        task_get(group)
    except KeyError:
        return False
    return True


def simulation_models_set(
    *,
    simulation: Simulation,
    routes: dict[str, int | None] | None = None,
    budget_money: Decimal | None = None,
    set_budget: bool = False,
) -> None:
    """Route the simulation's groups to profiles (None removes a route) and set its money
    budget. Refused while it runs: its calls must not change model mid-run."""
    with transaction.atomic():
        locked = Simulation.objects.select_for_update().get(pk=simulation.pk)
        if locked.status == SimulationStatus.RUNNING:
            raise SimulationRunning("a running simulation's models cannot change; pause it")
        owner = locked.owner
        for group, profile_id in (routes or {}).items():
            if not route_group_valid(group):
                known = ", ".join((*ROUTE_GROUPS,))
                raise ValueError(f"unknown route {group!r}: expected {known} or a task's name")
            if profile_id is None:
                ModelRoute.objects.filter(simulation=locked, group=group).delete()
                continue
            if not profiles_visible(user=owner).filter(pk=profile_id).exists():
                raise ValueError(f"profile {profile_id} does not exist")
            ModelRoute.objects.update_or_create(
                simulation=locked, group=group, defaults={"profile_id": profile_id}
            )
    if set_budget:
        model_budget_money_set(simulation=simulation, money=budget_money)


def simulation_models(*, simulation: Simulation) -> dict[str, Any]:
    """The simulation's routes, money budget and spend so far."""
    usage = ModelUsage.objects.filter(simulation_id=simulation.pk).first()
    return {
        "routes": dict(
            ModelRoute.objects.filter(simulation=simulation).values_list("group", "profile_id")
        ),
        "groups": {group: list(tasks) for group, tasks in TASK_GROUPS.items()},
        "budget_money": usage.budget_money if usage else None,
        "cost": usage.cost if usage else Decimal(0),
    }
