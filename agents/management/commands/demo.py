"""`manage.py demo`: the town, a simulation of its 25 residents, and a path between places."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from agents.services import simulation_create_from_base
from world.models import Location, LocationKind, Town
from world.paths import path_between_locations
from world.selectors import address_at
from world.towns import town_get_or_import

DEMO_USER = "demo"
PATH_FROM = "the Ville:Isabella Rodriguez's apartment:main room"
PATH_TO = "the Ville:Hobbs Cafe:cafe"


class Command(BaseCommand):
    help = "Load the Ville, create a simulation of base_the_ville_n25, and show a path."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--base", default="base_the_ville_n25")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        town = town_get_or_import()
        self._show_town(town)
        owner, _ = User.objects.get_or_create(username=DEMO_USER)
        simulation = simulation_create_from_base(
            owner=owner, base=options["base"], seed=options["seed"], name="demo"
        )
        self.stdout.write(
            f"\nSimulation #{simulation.pk} '{simulation.name}' of {simulation.base}: "
            f"{simulation.agents.count()} residents at {simulation.sim_time:%B %d, %Y %H:%M}, "
            f"{simulation.last_seq} events in its log"
        )
        for agent in simulation.agents.order_by("name"):
            place = address_at(town=town, tile=agent.tile)
            self.stdout.write(f"  {agent.name:<20} ({agent.tile_x:>3},{agent.tile_y:>3})  {place}")
        path = path_between_locations(town=town, from_address=PATH_FROM, to_address=PATH_TO)
        self.stdout.write(f"\nPath from {PATH_FROM}\n      to {PATH_TO}: {len(path) - 1} steps")
        self.stdout.write(
            "  " + " -> ".join(f"({x},{y})" for x, y in path[:: max(1, len(path) // 8)])
        )

    def _show_town(self, town: Town) -> None:
        counts = {
            kind: Location.objects.filter(town=town, kind=kind).count()
            for kind in (LocationKind.SECTOR, LocationKind.ARENA, LocationKind.OBJECT)
        }
        walkable = sum(1 for value in town.collision if value == 0)
        self.stdout.write(
            f"Town '{town.world_name}' ({town.width}x{town.height} tiles): "
            f"{counts[LocationKind.SECTOR]} sectors, {counts[LocationKind.ARENA]} arenas, "
            f"{counts[LocationKind.OBJECT]} objects, {walkable} walkable tiles"
        )
