"""Serializers of what residents plan and say: plan trees and conversations."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.models import Conversation, PlanLevel
from agents.selectors import PlanNode

from ..fields import QueryBooleanField

_TRIPLE = {
    "type": "array",
    "items": {"type": "string"},
    "minItems": 3,
    "maxItems": 3,
    "nullable": True,
    "description": "(subject, predicate, object) of the item; null when it has none",
}


class PlanQuerySerializer(serializers.Serializer[Any]):
    """Which sim day of a plan to read, and whether with what re-plans dropped."""

    date = serializers.DateField(
        required=False, help_text="sim day (YYYY-MM-DD); default: the simulation's current one"
    )
    include_superseded = QueryBooleanField(
        required=False, default=False, help_text="also the actions a re-plan dropped"
    )
    step = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="the plan as it stood at this committed step (made by then, dropped or not "
        "as then; `current` at its sim time, the day its sim day); default: the last step",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # DRF reads an empty query value as absent; an empty date is a mistake, not "today".
        for name in ("date", "step"):
            if self.initial_data.get(name) == "":
                raise serializers.ValidationError({name: ["must not be empty"]})
        return attrs


class PlanActionSerializer(serializers.Serializer[PlanNode]):
    """A node of a plan tree; an action (5-15 minutes) has no children."""

    number = serializers.IntegerField(source="item.number", help_text="per resident, log order")
    level = serializers.ChoiceField(choices=PlanLevel.choices, source="item.level")
    description = serializers.CharField(source="item.description")
    address = serializers.CharField(source="item.address", help_text="where; may be empty")
    start = serializers.DateTimeField(source="item.start", help_text="sim time")
    duration_minutes = serializers.IntegerField(source="item.duration_minutes")
    emoji = serializers.CharField(source="item.emoji")
    triple = serializers.SerializerMethodField()
    superseded = serializers.BooleanField(
        source="item.superseded", help_text="dropped by a re-plan"
    )
    current = serializers.SerializerMethodField()

    @extend_schema_field(_TRIPLE)
    def get_triple(self, node: PlanNode) -> list[str] | None:
        triple = [node.item.subject, node.item.predicate, node.item.object]
        return triple if any(triple) else None

    @extend_schema_field(serializers.BooleanField(help_text="under way at `sim_time`"))
    def get_current(self, node: PlanNode) -> bool:
        return node.item.pk in self.context.get("current", set())


class PlanHourSerializer(PlanActionSerializer):
    """An hour block of a plan, with the actions decomposed from it."""

    children = PlanActionSerializer(many=True, help_text="actions, in time order")


class PlanDaySerializer(PlanActionSerializer):
    """An item of the day plan (broad strokes), with its hour blocks."""

    children = PlanHourSerializer(many=True, help_text="hour blocks, in time order")


class PlanSerializer(serializers.Serializer[Any]):
    """A resident's plan for one sim day: day items > hour blocks > actions."""

    resident = serializers.CharField(help_text="the resident's name")
    date = serializers.DateField(help_text="the sim day")
    step = serializers.IntegerField(help_text="the step the plan is read at")
    sim_time = serializers.DateTimeField(help_text="that step's sim time")
    include_superseded = serializers.BooleanField()
    items = PlanDaySerializer(many=True, help_text="day items, in time order")


class ConversationLineSerializer(serializers.Serializer[Any]):
    speaker = serializers.CharField()
    text = serializers.CharField()


class ConversationSerializer(serializers.ModelSerializer[Conversation]):
    """A conversation between residents; its lines are in the detail view."""

    participants = serializers.ListField(
        child=serializers.CharField(), help_text="[initiator, partner]"
    )
    line_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Conversation
        fields = ["number", "participants", "summary", "address", "step", "started", "line_count"]
        read_only_fields = fields


class ConversationDetailSerializer(ConversationSerializer):
    """A conversation between residents, line by line."""

    lines = ConversationLineSerializer(many=True)

    class Meta(ConversationSerializer.Meta):
        fields = [*ConversationSerializer.Meta.fields, "lines"]
        read_only_fields = fields
