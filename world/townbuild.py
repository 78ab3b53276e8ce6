"""Writes on users' towns: one made from a town file (a `smallville-town/1` grid or a Tiled
map), and its deletion while nothing uses it. Shipped towns come from files only
(world.towns) and are read-only."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from .gridtown import FORMAT, Checks, TownInvalid, grid_check, town_invalid
from .models import Base, Simulation, Town
from .tiledtown import is_tiled, tiled_check
from .towns import _build_location_tree, shipped_town_names


class TownInUse(Exception):
    """The town is used by a base or a simulation: it cannot be deleted."""


def town_check(data: Any) -> dict[str, Any]:
    """The Town fields of a town file of either format; TownInvalid naming the field."""
    if not isinstance(data, dict):
        raise town_invalid("non_field_errors", "a town is a JSON object")
    if is_tiled(data) or ("type" in data and "format" not in data):  # Tiled's, or meant to be
        return tiled_check(data)
    if data.get("format", FORMAT) != FORMAT:
        raise town_invalid("format", f"{FORMAT!r}, or a Tiled map (with type 'map')")
    return grid_check(data)


def _name_free(name: str, owner: User | None) -> None:
    """Not one of the owner's town names, nor a shipped town's (imported or not), up to case."""
    taken = Town.objects.filter(name__iexact=name)
    mine = taken.filter(owner=owner).exists() if owner is not None else False
    if mine or taken.filter(owner__isnull=True).exists():
        raise town_invalid("name", f"a town called {name!r} exists already")
    if name.casefold() in {shipped.casefold() for shipped in shipped_town_names()}:
        raise town_invalid("name", f"{name!r} is the name of a shipped town")


def _name_given(data: Any) -> str | None:
    """The town's name a bad town file gives, if it gives one."""
    if not isinstance(data, dict):
        return None
    if not is_tiled(data):
        name = data.get("name")
        return name if isinstance(name, str) else None
    properties = data.get("properties")
    for item in properties if isinstance(properties, list) else []:
        if isinstance(item, dict) and item.get("name") == "name":
            value = item.get("value")
            return value if isinstance(value, str) else None
    return None


def town_create(*, owner: User | None, data: Any) -> Town:
    """A new town of `owner` (None: a public one, as shipped) from a town file's data;
    TownInvalid (nothing written) when bad. A Tiled map's town name is its `name`
    property, reported as `properties.name`. A name taken is reported with every other
    field at fault."""
    name_field = "properties.name" if is_tiled(data) else "name"
    checks = Checks()
    fields = checks.run(town_check, data)
    name = fields["name"] if fields is not None else _name_given(data)
    if name is not None and name_field not in checks.errors:
        try:
            _name_free(name, owner)
        except TownInvalid as exc:
            checks.errors[name_field] = exc.errors["name"]
    checks.done()
    assert fields is not None
    try:
        with transaction.atomic():
            town = Town.objects.create(owner=owner, **fields)
            _build_location_tree(town)
    except IntegrityError:  # a simultaneous create took the name
        message = f"a town called {fields['name']!r} exists already"
        raise town_invalid(name_field, message) from None
    return town


def town_users(*, town: Town) -> list[str]:
    """What uses the town: bases of its owner that name it, simulations of it."""
    bases = Base.objects.filter(town=town.name)
    bases = bases.filter(owner=town.owner) if town.owner_id else bases
    used = [f"base {name!r}" for name in bases.order_by("name").values_list("name", flat=True)]
    simulations = Simulation.objects.filter(town=town).count()
    if simulations:
        used.append(f"{simulations} simulation(s)")
    return used


def town_delete(*, town: Town) -> None:
    """Delete a user's town; TownInUse while a base or a simulation uses it."""
    used = town_users(town=town)
    if used:
        raise TownInUse(f"the town is used by {', '.join(used)}: delete them first")
    try:
        town.delete()
    except ProtectedError:  # a simulation made meanwhile
        raise TownInUse("the town is used by a simulation: delete it first") from None
