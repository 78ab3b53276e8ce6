"""Serializers of the user controls: interviews, the inner voice, object states, stepping in."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from agents.models import Interview, ObjectState
from runtime.controls import NAME_PATTERN
from world.models import Agent, Simulation
from world.selectors import address_at, town_cached

from .fields import StrictCharField, StrictFieldsMixin, StrictIntegerField, UniqueListField
from .memory_serializers import MemorySerializer, StrictBooleanField
from .serializers import ResidentDetailSerializer

SESSION_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


def _text(max_length: int, help_text: str, **kwargs: Any) -> StrictCharField:
    return StrictCharField(min_length=1, max_length=max_length, help_text=help_text, **kwargs)


# --- interview -----------------------------------------------------------------------------


class InterviewRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A question to a resident, asked as someone the user names; unknown fields rejected."""

    persona = _text(200, 'who asks, e.g. "a news reporter"')
    question = _text(2000, "what to ask")
    session = StrictCharField(
        validators=[RegexValidator(SESSION_PATTERN)],
        required=False,
        help_text="an earlier answer's session, to continue that interview; default: a new one",
    )
    remember = StrictBooleanField(
        required=False,
        default=False,
        help_text="also keep the exchange as one of the resident's memories (a conversation)",
    )


class InterviewSerializer(serializers.ModelSerializer[Interview]):
    """A question put to a resident and its answer; `number` counts a simulation's turns."""

    resident = serializers.CharField(source="agent.name", read_only=True)

    class Meta:
        model = Interview
        fields = [
            "number",
            "resident",
            "session",
            "persona",
            "question",
            "answer",
            "remembered",
            "step",
            "sim_time",
        ]
        read_only_fields = fields


# --- the inner voice -----------------------------------------------------------------------


class WhisperRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A statement the resident takes as its own thought; unknown fields are rejected."""

    statement = _text(1000, "e.g. I should invite Klaus Mueller to my party")


class WhisperSerializer(serializers.Serializer[Any]):
    """A whisper as logged: its event, and the thought memory it made."""

    seq = serializers.IntegerField(help_text="the agent.whispered event's seq")
    step = serializers.IntegerField()
    sim_time = serializers.DateTimeField()
    resident = serializers.CharField()
    statement = serializers.CharField()
    memory = MemorySerializer(allow_null=True, help_text="the thought memory")


# --- changing the world --------------------------------------------------------------------


class ObjectStateSerializer(serializers.ModelSerializer[ObjectState]):
    """A game object that is not idle: what it is doing, and who set it ("" for a user)."""

    class Meta:
        model = ObjectState
        fields = ["address", "state", "by_agent"]
        read_only_fields = fields


class ObjectStateSetSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """An object's new state in words; "idle" clears it. Unknown fields are rejected."""

    address = _text(600, "the object's address, e.g. the Ville:Hobbs Cafe:cafe:cooking area")
    state = _text(300, 'e.g. "burning"; "idle" clears it')


# --- stepping in ---------------------------------------------------------------------------


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


class ControlRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Take control of a resident (true) or give it back (false)."""

    user_controlled = StrictBooleanField(
        help_text="true: it waits for go and say; false: it follows its own plan again"
    )


class GoRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Where a user-controlled resident walks to; unknown fields are rejected."""

    address = _text(600, "a place of the town: sector, arena or object address")
    action = StrictCharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="what it will be doing, as others see it; default: walking there",
    )


class SayRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """What a user-controlled resident says, and to whom (a resident in sight)."""

    to = _text(200, "the listener's name or id")
    text = _text(1000, "what to say")


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
    tile = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=10_000),
        min_length=2,
        max_length=2,
        required=False,
        help_text="where it starts: a walkable tile [x, y]",
    )
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
        child=_text(1000, "a statement"),
        max_length=20,
        required=False,
        default=list,
        help_text="statements it starts with, as thoughts",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if ("address" in attrs) == ("tile" in attrs):
            raise serializers.ValidationError("give exactly one of address and tile")
        return attrs
