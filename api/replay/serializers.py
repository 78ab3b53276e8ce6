"""JSON shapes of the viewer's reads: a town's map and a simulation's replay."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from runtime.replay import MAX_REPLAY_STEPS, Replay
from world.townmap import TownMap

_TILE = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}


class MapPlaceSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField()
    name = serializers.CharField()
    address = serializers.CharField()
    label_tile = serializers.ListField(
        source="label",
        child=serializers.IntegerField(),
        help_text="[x, y]: the tile to write its name at",
    )
    sector = serializers.IntegerField(
        source="parent", allow_null=True, help_text="an arena's sector index; null for a sector"
    )


class MapObjectSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    address = serializers.CharField()
    arena = serializers.IntegerField(allow_null=True, help_text="index in `arenas`")
    tiles = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))


class TownMapSerializer(serializers.Serializer[Any]):
    """A town's tile layers, run-length encoded row-major as value, count, value, count..."""

    town = serializers.IntegerField(source="town_id")
    name = serializers.CharField()
    world_name = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    tile_size = serializers.IntegerField()
    collision = serializers.ListField(
        child=serializers.IntegerField(), help_text="runs of 1 (a wall) and 0 (walkable)"
    )
    sector_tiles = serializers.ListField(
        child=serializers.IntegerField(), help_text="runs of a sector's index + 1 (0: none)"
    )
    arena_tiles = serializers.ListField(
        child=serializers.IntegerField(), help_text="runs of an arena's index + 1 (0: none)"
    )
    sectors = MapPlaceSerializer(many=True)
    arenas = MapPlaceSerializer(many=True)
    objects = MapObjectSerializer(many=True)


def town_map_data(town_map: TownMap) -> dict[str, Any]:
    return dict(TownMapSerializer(town_map).data)


class ReplayQuerySerializer(serializers.Serializer[Any]):
    from_step = serializers.IntegerField(
        min_value=0, default=0, help_text="the first step: its state is sent whole"
    )
    to_step = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text=f"the last step (default: {MAX_REPLAY_STEPS} steps on, or the last "
        f"committed); at most {MAX_REPLAY_STEPS} steps after `from_step`",
    )


class ReplayResidentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    initials = serializers.CharField()
    arrived_step = serializers.IntegerField(help_text="the step it came into the town at")
    left_step = serializers.IntegerField(
        allow_null=True,
        help_text="the step it left the town at (drawn until the step before); null while "
        "it lives there",
    )


class ReplayStepSerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField()
    moved = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="flat triples: resident index, x, y (the residents that moved)",
    )
    acted = serializers.ListField(
        child=serializers.JSONField(),
        help_text="[resident index, action, emoji, partner index or -1] for each resident "
        "whose action changed (the partner: whom it talks with)",
    )


class ReplaySerializer(serializers.Serializer[Any]):
    """Residents once, their state at `from_step`, then each later step's changes."""

    from_step = serializers.IntegerField()
    to_step = serializers.IntegerField()
    last_step = serializers.IntegerField(help_text="the simulation's last committed step")
    residents = ReplayResidentSerializer(many=True)
    tiles = serializers.ListField(
        child=serializers.IntegerField(), help_text="at from_step: x, y per resident, in order"
    )
    actions = serializers.ListField(child=serializers.CharField(allow_blank=True))
    emojis = serializers.ListField(child=serializers.CharField(allow_blank=True))
    partners = serializers.ListField(
        child=serializers.IntegerField(), help_text="whom each resident talks with (index), or -1"
    )
    steps = ReplayStepSerializer(many=True, help_text="from_step + 1 .. to_step, in order")


def replay_data(replay: Replay) -> dict[str, Any]:
    """The replay as JSON, built directly (a serializer per step would be the slow part)."""
    return {
        "from_step": replay.from_step,
        "to_step": replay.to_step,
        "last_step": replay.last_step,
        "residents": [
            {
                "id": r.id,
                "name": r.name,
                "initials": r.initials,
                "arrived_step": r.arrived_step,
                "left_step": r.left_step,
            }
            for r in replay.residents
        ],
        "tiles": replay.tiles,
        "actions": replay.actions,
        "emojis": replay.emojis,
        "partners": replay.partners,
        "steps": [{"step": s.step, "moved": s.moved, "acted": s.acted} for s in replay.steps],
    }
