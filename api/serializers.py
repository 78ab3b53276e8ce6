"""Serializers: the JSON shapes of towns, locations, simulations, residents and events."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.bases import BASES
from world.models import Agent, Event, Location, Simulation, SimulationStatus, Town

from .fields import (
    CalendarDateTimeField,
    ConfigField,
    StrictCharField,
    StrictFieldsMixin,
    StrictIntegerField,
    config_check_strictly,
)

MAX_SEED = 2**31 - 1
MAX_SEC_PER_STEP = 3600

# [[x, y], ...]: tiles as coordinates, never as the stored indices.
_TILE = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
_TILE_LIST = {"type": "array", "items": _TILE}


class TownSerializer(serializers.ModelSerializer[Town]):
    """A tile map with its place counts; the tile layers themselves are never sent."""

    sector_count = serializers.IntegerField(read_only=True)
    arena_count = serializers.IntegerField(read_only=True)
    object_count = serializers.IntegerField(read_only=True)
    walkable_tiles = serializers.IntegerField(
        read_only=True, help_text="tiles whose collision value is 0"
    )
    shipped = serializers.BooleanField(read_only=True, help_text="public and read-only")
    owner: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null when shipped"
    )

    class Meta:
        model = Town
        fields = [
            "id",
            "name",
            "world_name",
            "width",
            "height",
            "tile_size",
            "sector_count",
            "arena_count",
            "object_count",
            "walkable_tiles",
            "shipped",
            "owner",
            "created_at",
        ]
        read_only_fields = fields


def tiles_as_xy(town_width: int, tiles: list[int]) -> list[list[int]]:
    return [[index % town_width, index // town_width] for index in tiles]


class LocationSerializer(serializers.ModelSerializer[Location]):
    """A place of the tree world > sector > arena > object.

    With ?include_tiles=true a list also carries each place's `tiles`, as in the detail view.
    """

    tile_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Location
        fields = ["id", "town", "kind", "name", "address", "parent", "tile_count"]
        read_only_fields = fields


class LocationTilesSerializer(LocationSerializer):
    """A place of the tree world > sector > arena > object, with its tiles."""

    tiles = serializers.SerializerMethodField()

    class Meta(LocationSerializer.Meta):
        fields = [*LocationSerializer.Meta.fields, "tiles"]
        read_only_fields = fields

    @extend_schema_field({**_TILE_LIST, "description": "the place's tiles as [[x, y], ...]"})
    def get_tiles(self, location: Location) -> list[list[int]]:
        return tiles_as_xy(self.context["town_width"], location.tiles)


class PathQuerySerializer(serializers.Serializer[Any]):
    """Where a walk starts and ends: an address, or a tile as x and y, for each end."""

    to = serializers.CharField(
        required=False, max_length=600, help_text="address to walk to, e.g. the Ville:Hobbs Cafe"
    )
    from_x = serializers.IntegerField(required=False, min_value=0)
    from_y = serializers.IntegerField(required=False, min_value=0)
    to_x = serializers.IntegerField(required=False, min_value=0)
    to_y = serializers.IntegerField(required=False, min_value=0)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        # `from` is a Python keyword, so it cannot be declared in the class body.
        fields["from"] = serializers.CharField(
            required=False, max_length=600, help_text="address to walk from"
        )
        return fields

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for end in ("from", "to"):
            has_address = end in attrs
            has_tile = {f"{end}_x", f"{end}_y"} & set(attrs)
            if has_address == bool(has_tile) or (has_tile and len(has_tile) != 2):
                raise serializers.ValidationError(
                    {end: [f"give either `{end}` (an address) or both `{end}_x` and `{end}_y`"]}
                )
        return attrs


class PathSerializer(serializers.Serializer[Any]):
    """A shortest 4-connected walk over walkable tiles, both ends included."""

    path = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    length = serializers.IntegerField(help_text="steps: tiles in `path` minus one")


# --- simulations ---------------------------------------------------------------------------


class SimulationSerializer(serializers.ModelSerializer[Simulation]):
    """A run of a town and its residents; `step` is the last committed step."""

    sim_time = serializers.DateTimeField(read_only=True, help_text="sim time at `step`")
    resident_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Simulation
        fields = [
            "id",
            "name",
            "town",
            "base",
            "start_time",
            "sim_time",
            "sec_per_step",
            "step",
            "status",
            "status_reason",
            "seed",
            "config",
            "parent",
            "forked_at_step",
            "created_at",
            "resident_count",
        ]
        read_only_fields = fields


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class BaseRefField(serializers.Field):  # type: ignore[type-arg]
    """A base by id (an integer) or by name (a string)."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, bool) or not isinstance(data, int | str) or data == "":
            raise serializers.ValidationError("a base's id (an integer) or its name (a string)")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class SimulationCreateSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A new simulation of a base; unknown fields are rejected."""

    base = BaseRefField(
        help_text="a base's id, or the name of one of yours or of a shipped one ("
        + ", ".join(sorted(BASES))
        + ")"
    )
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    seed = StrictIntegerField(min_value=0, max_value=MAX_SEED, required=False, default=0)
    sec_per_step = StrictIntegerField(
        min_value=1,
        max_value=MAX_SEC_PER_STEP,
        required=False,
        allow_null=True,
        default=None,
        help_text="sim seconds per step; default: the base's",
    )
    config = ConfigField(
        required=False, default=dict, help_text="see agents.config.SimulationConfig"
    )
    start_time = CalendarDateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="sim time at step 0; default: the base's",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        config_check_strictly(attrs["config"])
        return attrs


class SimulationForkSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Where to fork; unknown fields are rejected."""

    step = StrictIntegerField(
        min_value=0, required=False, help_text="last step to keep; default: the current step"
    )
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    seed = StrictIntegerField(
        min_value=0,
        max_value=MAX_SEED,
        required=False,
        help_text="the seed of the steps after the fork (a counterfactual twin with other "
        "draws); default: the source's",
    )


class SimulationRunSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """How far to run: a number of steps, or a sim time to reach (exactly one)."""

    steps = StrictIntegerField(min_value=1, max_value=1_000_000, required=False)
    until = CalendarDateTimeField(
        required=False, help_text="sim time to run to, at most 1,000,000 steps ahead"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if ("steps" in attrs) == ("until" in attrs):
            raise serializers.ValidationError("give exactly one of steps and until")
        return attrs


class ProgressSerializer(serializers.Serializer[Any]):
    """Where a run stands."""

    status = serializers.ChoiceField(choices=[s.value for s in SimulationStatus])
    reason = serializers.CharField()
    step = serializers.IntegerField()
    target_step = serializers.IntegerField(allow_null=True)
    sim_time = serializers.DateTimeField()
    agent_steps_per_second = serializers.FloatField(allow_null=True)
    model_calls = serializers.IntegerField()
    fallback_rate = serializers.FloatField(
        allow_null=True,
        help_text="share of model calls whose output stayed invalid and took the task's "
        "fail-safe answer (the offline policy); null before any call ended",
    )
    waiting_for = serializers.CharField(
        help_text="what a running simulation waits for now; a stopped one's reason"
    )


# --- residents and events -----------------------------------------------------------------


class ResidentSerializer(serializers.ModelSerializer[Agent]):
    """A resident (generative agent): identity, parameters, and where it is now."""

    tile = serializers.SerializerMethodField()
    location = serializers.SerializerMethodField()
    emoji = serializers.CharField(source="action_emoji", read_only=True)
    place = serializers.SerializerMethodField()

    class Meta:
        model = Agent
        fields = [
            "id",
            "name",
            "first_name",
            "last_name",
            "age",
            "innate",
            "learned",
            "currently",
            "lifestyle",
            "living_area",
            "daily_plan_requirement",
            "vision_radius",
            "attention_bandwidth",
            "retention",
            "recency_decay",
            "reflection_threshold",
            "tile",
            "location",
            "action",
            "emoji",
            "place",
            "chatting_with",
            "busy_until_step",
            "user_controlled",
            "left_step",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "action": {"help_text": "what the resident is doing now"},
            "chatting_with": {"help_text": "whom the resident is talking with, if anyone"},
            "busy_until_step": {"help_text": "step at which the current action ends"},
            "user_controlled": {"help_text": "moved by a user (go, say), not by its plan"},
            "left_step": {"help_text": "the step it left the town at; null while it lives there"},
        }

    @extend_schema_field({**_TILE, "description": "the resident's tile as [x, y]"})
    def get_tile(self, agent: Agent) -> list[int]:
        return [agent.tile_x, agent.tile_y]

    @extend_schema_field(
        serializers.CharField(
            allow_null=True,
            help_text="address of the arena at the tile, else its sector, else the world",
        )
    )
    def get_location(self, agent: Agent) -> str | None:
        places: dict[tuple[int, int], str] = self.context.get("places", {})
        return places.get(agent.tile)

    @extend_schema_field(
        serializers.CharField(
            allow_null=True,
            help_text="address of the current action, else `location`",
        )
    )
    def get_place(self, agent: Agent) -> str | None:
        return agent.action_address or self.get_location(agent)


class ResidentDetailSerializer(ResidentSerializer):
    """A resident, with its summary description and the places it knows (spatial memory)."""

    path_length = serializers.SerializerMethodField()

    class Meta(ResidentSerializer.Meta):
        fields = [*ResidentSerializer.Meta.fields, "summary", "path_length", "spatial_memory"]
        read_only_fields = fields

    @extend_schema_field(serializers.IntegerField(help_text="tiles still to walk"))
    def get_path_length(self, agent: Agent) -> int:
        return len(agent.path)


class EventSerializer(serializers.ModelSerializer[Event]):
    """One entry of a simulation's append-only log; `seq` is gap-free from 1."""

    class Meta:
        model = Event
        fields = ["seq", "step", "sim_time", "kind", "agent", "payload", "created_at"]
        read_only_fields = fields
