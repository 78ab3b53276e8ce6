"""Serializers of towns: a town, its places, and a walk between two of them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from world.models import Location, Town

from ..schema import TILE_LIST


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

    @extend_schema_field({**TILE_LIST, "description": "the place's tiles as [[x, y], ...]"})
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
