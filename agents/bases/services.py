"""Writes on bases (create, update, copy, delete, the shipped ones' import), and a base's
residents as the engine starts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from agents.persona import PERSONA_FIELDS
from world.addresses import Address
from world.models import Base as BaseRow
from world.models import Location, LocationKind, Town
from world.paths import location_anchor, reaches_places, walkable
from world.selectors import town_named
from world.towns import TownFormatError, shipped_town_names, town_get_or_import

from .format import BaseInvalid, Document, Resident, document_dump, document_parse
from .reference import BASES, Base, Persona, UnknownBase, reference_document

# Shipped bases written as base files (beside the reference's, agents.bases.reference).
DATA_DIR = Path(__file__).resolve().parent / "data"


def shipped_names() -> list[str]:
    """Every shipped base's name: the reference's, then the base files of DATA_DIR."""
    return [*BASES, *sorted(path.stem for path in DATA_DIR.glob("*.json"))]


def _shipped_document(name: str) -> dict[str, Any]:
    if name in BASES:
        return reference_document(name)
    path = DATA_DIR / f"{name}.json"
    if name not in shipped_names():
        raise UnknownBase(f"no shipped base {name!r}")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _town(name: str, owner: User | None) -> Town:
    """The owner's town of that name, else a shipped one; anyone else's is unknown."""
    town = town_named(owner=owner, name=name)
    if town is not None:
        return town
    try:
        return town_get_or_import(name)
    except TownFormatError:
        visible = Town.objects.filter(Q(owner__isnull=True) | Q(owner=owner))
        names = {*shipped_town_names(), *visible.values_list("name", flat=True)}
        known = ", ".join(sorted(names))
        raise BaseInvalid({"town": [f"no town called {name!r}; known: {known}"]}) from None


def _town_places(town: Town) -> dict[str, dict[str, dict[str, list[str]]]]:
    """{world: {sector: {arena: [objects]}}}: every arena and object of the town."""
    places: dict[str, dict[str, dict[str, list[str]]]] = {}
    rows = Location.objects.filter(
        town=town, kind__in=[LocationKind.ARENA, LocationKind.OBJECT]
    ).values_list("address", flat=True)
    for address in sorted(rows):
        place = Address.parse(address)
        objects = places.setdefault(place.world, {}).setdefault(place.sector, {})
        arena = objects.setdefault(place.arena, [])
        if place.is_object:
            arena.append(place.object)
    return places


def _start_tile(town: Town, resident: Resident, field: str) -> tuple[int, int]:
    start = resident.start
    if start.address is not None:
        try:
            return location_anchor(town=town, address=start.address)
        except ValueError as exc:
            raise BaseInvalid({f"{field}.start.address": [str(exc)]}) from None
    assert start.tile is not None
    if not walkable(town=town, tile=start.tile):
        raise BaseInvalid({f"{field}.start.tile": [f"{list(start.tile)} is not walkable"]})
    if not reaches_places(town=town, tile=start.tile):
        raise BaseInvalid({f"{field}.start.tile": [f"{list(start.tile)} reaches no place"]})
    return start.tile


def document_check(
    data: Any, *, owner: User | None
) -> tuple[Document, Town, list[tuple[int, int]]]:
    """The document, its town (one of `owner`'s, or a shipped one) and each resident's
    start tile; BaseInvalid naming every field at fault for a bad shape or a place, tile or
    town that does not exist."""
    document = document_parse(data)
    town = _town(document.town, owner)
    addresses = set(Location.objects.filter(town=town).values_list("address", flat=True))
    errors: dict[str, list[str]] = {}
    tiles = []
    for number, resident in enumerate(document.residents):
        field = f"residents[{number}]"
        if resident.living_area and resident.living_area not in addresses:
            message = f"{resident.living_area!r} is no place of {town.name}"
            errors.setdefault(f"{field}.living_area", []).append(message)
        try:
            tiles.append(_start_tile(town, resident, field))
        except BaseInvalid as exc:
            _merge(errors, exc)
    sectors = set(
        Location.objects.filter(town=town, kind=LocationKind.SECTOR).values_list("name", flat=True)
    )
    for number, event in enumerate(document.measures.events):
        if event.place not in sectors:
            at = f"measures.events[{number}].place"
            errors.setdefault(at, []).append(f"{event.place!r} is no sector of {town.name}")
    _scenario_places(document, town, addresses, errors)
    if errors:
        raise BaseInvalid(errors)
    return document, town, tiles


def _merge(errors: dict[str, list[str]], exc: BaseInvalid) -> None:
    for field, messages in exc.errors.items():
        errors.setdefault(field, []).extend(messages)


def _scenario_places(
    document: Document, town: Town, addresses: set[str], errors: dict[str, list[str]]
) -> None:
    """Each scenario's place, object or start not in the town, added to `errors`."""
    kinds = dict(Location.objects.filter(town=town).values_list("address", "kind"))
    for number, spec in enumerate(document.scenarios):
        field = f"scenarios[{number}]"
        if spec.place is not None and kinds.get(spec.place) not in (
            LocationKind.SECTOR,
            LocationKind.ARENA,
        ):
            message = f"{spec.place!r} is no sector or arena"
            errors.setdefault(f"{field}.place", []).append(message)
        if spec.address is not None and kinds.get(spec.address) != LocationKind.OBJECT:
            errors.setdefault(f"{field}.address", []).append(f"{spec.address!r} is no object")
        if spec.arrive is not None:
            area = spec.arrive.living_area
            if area and area not in addresses:
                message = f"{area!r} is no place of {town.name}"
                errors.setdefault(f"{field}.arrive.living_area", []).append(message)
            try:
                _start_tile(town, spec.arrive, f"{field}.arrive")
            except BaseInvalid as exc:
                _merge(errors, exc)


def _scenarios(document: Document) -> tuple[tuple[str, Any, dict[str, Any]], ...]:
    """Each scenario as (kind, at, params), residents by their names in the base."""
    names = {r.name.casefold(): r.name for r in document.residents}
    names |= {s.arrive.name.casefold(): s.arrive.name for s in document.scenarios if s.arrive}
    made = []
    for spec in document.scenarios:
        params: dict[str, Any] = spec.model_dump(
            include={"statement", "place", "address", "state"}, exclude_none=True
        )
        if spec.resident is not None:
            params["resident"] = names[spec.resident.casefold()]
        if spec.arrive is not None:
            params |= _arrival(spec.arrive)
        made.append((spec.kind, spec.at, params))
    return tuple(made)


def _arrival(resident: Resident) -> dict[str, Any]:
    fields = resident.model_dump(include=set(PERSONA_FIELDS))
    start = resident.start
    where = (
        {"address": start.address}
        if start.address is not None
        else {"tile": list(start.tile or ())}
    )
    memories = [*resident.seed_memories, *(r.memory for r in resident.relationships)]
    return {"name": resident.name, **fields, **where, "memories": memories}


def _identity(resident: Resident, known: dict[str, Any]) -> dict[str, Any]:
    """The identity of agent_created (agents.persona.IDENTITY_FIELDS)."""
    fields = resident.model_dump(
        exclude={"name", "start", "seed_memories", "relationships", "spatial_memory"}
    )
    fields["first_name"] = resident.first_name or resident.name.partition(" ")[0]
    fields["last_name"] = resident.last_name or resident.name.partition(" ")[2]
    fields["spatial_memory"] = resident.spatial_memory or known
    statements = [*resident.seed_memories, *(r.memory for r in resident.relationships)]
    return {**fields, "seed_statements": statements, "user_controlled": False}


def base_loaded(*, base: BaseRow) -> tuple[Base, Town]:
    """The base's residents as the engine starts them, and its town."""
    document, town, tiles = document_check(base_document(base=base), owner=base.owner)
    known = _town_places(town) if any(not r.spatial_memory for r in document.residents) else {}
    personas = tuple(
        Persona(name=r.name, identity=_identity(r, known), tile=(int(tile[0]), int(tile[1])))
        for r, tile in zip(document.residents, tiles, strict=True)
    )
    loaded = Base(
        name=base.name,
        town=town.name,
        start_time=document.start_time,
        sec_per_step=document.sec_per_step,
        personas=personas,
        scenarios=_scenarios(document),
    )
    return loaded, town


def base_document(*, base: BaseRow) -> dict[str, Any]:
    """The base as a base file."""
    return {
        "format": "smallville-base/1",
        "name": base.name,
        "description": base.description,
        "town": base.town,
        "start_time": base.start_time.isoformat(),
        "sec_per_step": base.sec_per_step,
        "residents": base.residents,
        "measures": base.measures,
        **({"scenarios": base.scenarios} if base.scenarios else {}),
    }


def _name_free(name: str, owner: User | None, exclude: int | None = None) -> None:
    taken = BaseRow.objects.filter(name__iexact=name)
    if exclude is not None:
        taken = taken.exclude(pk=exclude)
    if taken.filter(owner__isnull=True).exists() or (
        owner is not None and taken.filter(owner=owner).exists()
    ):
        raise BaseInvalid({"name": [f"a base called {name!r} exists already"]})


def _save(base: BaseRow, document: Document) -> BaseRow:
    dumped = document_dump(document)
    base.name = document.name
    base.description = document.description
    base.town = document.town
    base.start_time = document.start_time
    base.sec_per_step = document.sec_per_step
    base.residents = dumped["residents"]
    base.measures = dumped["measures"]
    base.scenarios = dumped.get("scenarios", [])
    try:
        with transaction.atomic():
            base.save()
    except IntegrityError:  # a simultaneous write took the name
        raise BaseInvalid({"name": [f"a base called {document.name!r} exists already"]}) from None
    return base


def base_create(*, owner: User | None, data: Any) -> BaseRow:
    """A new base from a base file's data; BaseInvalid (and nothing written) when bad."""
    document, _, _ = document_check(data, owner=owner)
    _name_free(document.name, owner)
    return _save(BaseRow(owner=owner), document)


def base_update(*, base: BaseRow, data: Any, partial: bool = False) -> BaseRow:
    """Replace the base (or, `partial`, the top-level fields given) from base-file data."""
    if partial and isinstance(data, dict):
        data = {**base_document(base=base), **data}
    document, _, _ = document_check(data, owner=base.owner)
    _name_free(document.name, base.owner, exclude=base.pk)
    return _save(base, document)


def base_copy(*, base: BaseRow, owner: User, name: str = "") -> BaseRow:
    """An owned copy of a base (the caller's or a shipped one)."""
    data = base_document(base=base)
    if not name:
        name = f"{base.name} (copy)"
        number = 2
        while BaseRow.objects.filter(owner=owner, name__iexact=name).exists():
            name, number = f"{base.name} (copy {number})", number + 1
    return base_create(owner=owner, data={**data, "name": name})


def base_delete(*, base: BaseRow) -> None:
    base.delete()


def base_shipped(name: str) -> BaseRow:
    """The shipped base `name`, imported from the reference's files on first use."""
    base = BaseRow.objects.filter(owner__isnull=True, name=name).first()
    if base is not None:
        return base
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"base:{name}"])
        base = BaseRow.objects.filter(owner__isnull=True, name=name).first()
        if base is None:
            document = document_parse(_shipped_document(name))
            base = _save(BaseRow(owner=None), document)
    return base


def bases_shipped_ensure() -> None:
    """Every shipped base is a row."""
    for name in shipped_names():
        base_shipped(name)
