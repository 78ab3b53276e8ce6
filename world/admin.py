"""Admin of towns, places, simulations and the (read-only) event log; staff only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import Count, F, Func, IntegerField, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from .models import Event, Location, LocationKind, Simulation, Town

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin as ModelAdmin
else:

    class ModelAdmin(admin.ModelAdmin):
        """ModelAdmin[Model] at run time too, as django-stubs spells it for mypy."""

        def __class_getitem__(cls, item):
            return cls


# One int per tile (14,000 for the Ville): shown as counts, never as form fields.
TOWN_LAYERS = ("collision", "sector_layer", "arena_layer", "game_object_layer", "spawning_layer")


class TownFilter(admin.SimpleListFilter):
    """Filter by town without loading every town's tile layers for the choices."""

    title = "town"
    parameter_name = "town"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        return [(str(pk), name) for pk, name in Town.objects.values_list("pk", "world_name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(town_id=value) if value and value.isdigit() else queryset


@admin.register(Town)
class TownAdmin(ModelAdmin[Town]):
    list_display = [
        "name",
        "world_name",
        "owner",
        "width",
        "height",
        "sectors",
        "arenas",
        "objects",
    ]
    list_select_related = ["owner"]
    search_fields = ["name", "world_name"]
    fields = [
        "name",
        "owner",
        "world_name",
        "width",
        "height",
        "tile_size",
        "sectors",
        "arenas",
        "objects",
        "walkable_tiles",
        "created_at",
    ]
    readonly_fields = [
        "width",
        "height",
        "tile_size",
        "sectors",
        "arenas",
        "objects",
        "walkable_tiles",
        "created_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # towns are imported (world.towns), not typed in

    def get_queryset(self, request: HttpRequest) -> QuerySet[Town]:
        return (
            super()
            .get_queryset(request)
            .defer(*TOWN_LAYERS)
            .annotate(
                n_sectors=Count("locations", filter=Q(locations__kind=LocationKind.SECTOR)),
                n_arenas=Count("locations", filter=Q(locations__kind=LocationKind.ARENA)),
                n_objects=Count("locations", filter=Q(locations__kind=LocationKind.OBJECT)),
            )
        )

    @admin.display(ordering="n_sectors")
    def sectors(self, town: Any) -> int:
        return int(town.n_sectors)

    @admin.display(ordering="n_arenas")
    def arenas(self, town: Any) -> int:
        return int(town.n_arenas)

    @admin.display(ordering="n_objects")
    def objects(self, town: Any) -> int:
        return int(town.n_objects)

    @admin.display(description="walkable tiles")
    def walkable_tiles(self, town: Town) -> int:
        return sum(1 for value in town.collision if value == 0)


@admin.register(Location)
class LocationAdmin(ModelAdmin[Location]):
    list_display = ["address", "kind", "town", "tile_count"]
    list_filter = ["kind", TownFilter]
    search_fields = ["address"]
    raw_id_fields = ["parent"]
    fields = ["town", "parent", "kind", "name", "address", "tile_count"]
    readonly_fields = ["town", "tile_count"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Location]:
        return (
            super()
            .get_queryset(request)
            .select_related("town")
            .defer("tiles", *(f"town__{layer}" for layer in TOWN_LAYERS))
            .annotate(n_tiles=Func(F("tiles"), function="cardinality", output_field=IntegerField()))
        )

    @admin.display(ordering="n_tiles", description="tiles")
    def tile_count(self, location: Any) -> int:
        return int(location.n_tiles or 0)


@admin.register(Simulation)
class SimulationAdmin(ModelAdmin[Simulation]):
    list_display = ["name", "owner", "base", "step", "status", "share", "created_at"]
    list_filter = ["status", "base", "share"]
    search_fields = ["name"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner", "parent"]
    filter_horizontal = ["guests"]  # who may join when shared with those invited
    # The clock and run parameters are projections of the event log: change them by events.
    readonly_fields = [
        "town",
        "base",
        "start_time",
        "sec_per_step",
        "step",
        "seed",
        "config",
        "embedding_model",
        "parent",
        "forked_at_step",
        "last_seq",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # created from a base (agents.services), which writes its events

    def get_queryset(self, request: HttpRequest) -> QuerySet[Simulation]:
        return (
            super()
            .get_queryset(request)
            .select_related("town")
            .defer(*(f"town__{layer}" for layer in TOWN_LAYERS))
        )


@admin.register(Event)
class EventAdmin(ModelAdmin[Event]):
    """The log is append-only: staff may read it, nobody may add, change or delete."""

    list_display = ["seq", "simulation", "step", "sim_time", "kind", "agent"]
    list_filter = ["kind"]
    search_fields = ["agent"]
    list_select_related = ["simulation"]
    show_full_result_count = False
    fields = readonly_fields = (
        "simulation",
        "seq",
        "step",
        "sim_time",
        "kind",
        "agent",
        "payload_pretty",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Event | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Event | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Event]:
        return super().get_queryset(request).defer("payload")  # read on the change page only

    @admin.display(description="payload")
    def payload_pretty(self, event: Event) -> str:
        text = json.dumps(event.payload, indent=2, sort_keys=True, ensure_ascii=False)
        return format_html("<pre>{}</pre>", text)
