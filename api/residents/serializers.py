"""Serializers of residents: as listed, in detail, with a pending thought; a newcomer."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.persona import PARAMETER_FIELDS, PERSONA_FIELDS
from runtime.controls import NAME_PATTERN
from world.models import Agent, Simulation
from world.selectors import address_at, town_cached

from ..fields import (
    StrictBooleanField,
    StrictCharField,
    StrictFieldsMixin,
    StrictIntegerField,
    UniqueListField,
    address_or_tile,
    text_field,
    tile_field,
)
from ..schema import TILE


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
            *PERSONA_FIELDS,
            *PARAMETER_FIELDS,
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

    @extend_schema_field({**TILE, "description": "the resident's tile as [x, y]"})
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


class ResidentStateSerializer(ResidentDetailSerializer):
    """A resident, with the inner-voice thought it has yet to act on."""

    class Meta(ResidentDetailSerializer.Meta):
        fields = [*ResidentDetailSerializer.Meta.fields, "pending_thought"]
        read_only_fields = fields


def resident_state_data(agent: Agent, simulation: Simulation) -> dict[str, Any]:
    """A resident's state as the controls answer it, with the place at its tile."""
    town = town_cached(pk=simulation.town_id)
    places = {agent.tile: address_at(town=town, tile=agent.tile)}
    return ResidentStateSerializer(agent, context={"places": places}).data


class NewcomerSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A newcomer: an identity and a start (`address` or `tile`)."""

    name = StrictCharField(
        max_length=200,
        validators=[RegexValidator(NAME_PATTERN)],
        help_text="unique in the simulation; with a letter, and no / : \\",
    )
    first_name = StrictCharField(max_length=100, required=False, default="", allow_blank=True)
    last_name = StrictCharField(max_length=100, required=False, default="", allow_blank=True)
    age = StrictIntegerField(min_value=0, max_value=200, required=False, allow_null=True)
    innate = StrictCharField(
        max_length=1000, required=False, default="", allow_blank=True, help_text="innate traits"
    )
    learned = StrictCharField(max_length=2000, required=False, default="", allow_blank=True)
    currently = StrictCharField(max_length=2000, required=False, default="", allow_blank=True)
    lifestyle = StrictCharField(max_length=2000, required=False, default="", allow_blank=True)
    living_area = StrictCharField(
        max_length=600,
        required=False,
        default="",
        allow_blank=True,
        help_text="address of its home arena, if any",
    )
    daily_plan_requirement = StrictCharField(
        max_length=2000, required=False, default="", allow_blank=True
    )
    address = StrictCharField(
        min_length=1,
        max_length=600,
        required=False,
        help_text="where it starts: a place of the town",
    )
    tile = tile_field("where it starts: a walkable tile [x, y]")
    user_controlled = StrictBooleanField(
        required=False,
        default=True,
        help_text="true: it waits for go and say; false: it plans and lives its own day",
    )
    knows = serializers.ChoiceField(
        choices=["town", "here"],
        required=False,
        default="town",
        help_text="town: it knows every arena of the town; here: only the one it starts in",
    )
    memories = UniqueListField(
        child=text_field(1000, "a statement"),
        max_length=20,
        required=False,
        default=list,
        help_text="statements it starts with, as thoughts",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        address_or_tile(attrs)
        return attrs
