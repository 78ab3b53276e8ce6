"""Serializers of the user controls: object states; control, go and say."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from agents.models import ObjectState

from ..fields import (
    StrictBooleanField,
    StrictCharField,
    StrictFieldsMixin,
    address_or_tile,
    text_field,
    tile_field,
)

# --- changing the world --------------------------------------------------------------------


class ObjectStateSerializer(serializers.ModelSerializer[ObjectState]):
    """A game object that is not idle: what it is doing, and who set it ("" for a user)."""

    class Meta:
        model = ObjectState
        fields = ["address", "state", "by_agent"]
        read_only_fields = fields


class ObjectStateSetSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """An object's new state in words; "idle" clears it. Unknown fields are rejected."""

    address = text_field(600, "the object's address, e.g. Brindle Green:Kettle Cafe:cafe:stove")
    state = text_field(300, 'e.g. "burning"; "idle" clears it')


# --- stepping in ---------------------------------------------------------------------------


class ControlRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Take control of a resident (true) or give it back (false)."""

    user_controlled = StrictBooleanField(
        help_text="true: it waits for go and say; false: it follows its own plan again"
    )


class GoRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Where a user-controlled resident walks to (`address` or `tile`); unknown fields are
    rejected."""

    address = StrictCharField(
        min_length=1,
        max_length=600,
        required=False,
        help_text="a place of the town: sector, arena or object address",
    )
    tile = tile_field("a walkable tile [x, y]")
    action = StrictCharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="what it will be doing, as others see it; default: walking there",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        address_or_tile(attrs)
        return attrs


class SayRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """What a user-controlled resident says, and to whom (a resident in sight)."""

    to = text_field(200, "the listener's name or id")
    text = text_field(1000, "what to say")
