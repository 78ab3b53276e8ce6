"""Serializers of playing in the town: the share setting, a player, joining, who is in sight."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from runtime.controls import NAME_PATTERN
from runtime.models import Player
from world.models import Share

from ..fields import (
    StrictCharField,
    StrictFieldsMixin,
    UniqueListField,
    address_or_tile,
    tile_field,
)


class ShareSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Who besides the owner may watch the simulation and join it as a person."""

    share = serializers.ChoiceField(
        choices=Share.choices,
        help_text="off: only the owner; invited: the users in `guests`; anyone: every "
        "logged-in user",
    )
    guests = UniqueListField(
        child=StrictCharField(max_length=150, help_text="a username"),
        max_length=200,
        required=False,
        help_text="usernames of the users invited (kept whatever `share` is); absent: unchanged",
    )


class PlayerSerializer(serializers.ModelSerializer[Player]):
    """A person in the town: who plays which resident, and how they came in."""

    user = serializers.CharField(source="user.username", read_only=True)
    resident = serializers.CharField(source="agent.name", read_only=True)
    resident_id = serializers.IntegerField(source="agent.id", read_only=True)
    you = serializers.SerializerMethodField(help_text="whether the requester plays it")

    class Meta:
        model = Player
        fields = ["user", "resident", "resident_id", "newcomer", "joined_at", "you"]
        read_only_fields = fields

    def get_you(self, player: Player) -> bool:
        request = self.context.get("request")
        return bool(request is not None and player.user_id == request.user.pk)


class JoinSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Step in: as a newcomer (`name`, `about`, and `address` or `tile`), or, the owner
    only, by taking over a resident (`resident`)."""

    name = StrictCharField(
        max_length=200,
        required=False,
        validators=[RegexValidator(NAME_PATTERN)],
        help_text="the newcomer's name, new in the simulation",
    )
    about = StrictCharField(
        max_length=1000,
        required=False,
        default="",
        allow_blank=True,
        help_text="a line about themselves, as residents will know them",
    )
    address = StrictCharField(
        min_length=1, max_length=600, required=False, help_text="where they arrive: a place"
    )
    tile = tile_field("where they arrive: a walkable tile [x, y]")
    resident = StrictCharField(
        max_length=200, required=False, help_text="a resident to take over (its name or id)"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if "resident" in attrs:
            extra = sorted(k for k in ("name", "address", "tile") if k in attrs)
            if extra:
                raise serializers.ValidationError({extra[0]: ["a take-over names only `resident`"]})
            return attrs
        if "name" not in attrs:
            raise serializers.ValidationError({"name": ["a newcomer needs a name"]})
        address_or_tile(attrs)
        return attrs


class SightSerializer(serializers.Serializer[Any]):
    """A resident in sight: close enough, in the same arena, to talk to."""

    name = serializers.CharField()
    id = serializers.IntegerField()
    tile = serializers.ListField(child=serializers.IntegerField(), help_text="[x, y]")
    distance = serializers.IntegerField(help_text="tiles away (the larger of x and y)")
    action = serializers.CharField()
    asleep = serializers.BooleanField()
    person = serializers.BooleanField(help_text="whether a user controls it")
