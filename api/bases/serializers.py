"""Serializers of bases: a base as the base file format has it, with its id and owner."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from world.models import Base

from ..fields import StrictCharField, StrictFieldsMixin


class BaseSerializer(serializers.ModelSerializer[Base]):
    """A base: a town, a start time, seconds per step and residents (docs/authoring.md).

    Writes are checked by the base file's schema (agents.bases.format), not by this class."""

    format = serializers.SerializerMethodField()
    shipped = serializers.BooleanField(read_only=True, help_text="public and read-only")
    owner: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    residents = serializers.JSONField(
        help_text="[{name, age, innate, learned, currently, lifestyle, living_area, "
        "daily_plan_requirement, start: {address} | {tile: [x, y]}, seed_memories, "
        "relationships: [{with, memory}], ...}]"
    )
    scenarios = serializers.JSONField(
        required=False,
        help_text="[{kind, at, resident | statement | place | address | state | arrive}]: "
        "timed interventions (docs/authoring.md, Scenarios)",
    )

    class Meta:
        model = Base
        fields = [
            "id",
            "format",
            "name",
            "description",
            "town",
            "start_time",
            "sec_per_step",
            "residents",
            "scenarios",
            "shipped",
            "owner",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "format", "shipped", "owner", "created_at", "updated_at"]

    def get_format(self, base: Base) -> str:
        return "smallville-base/1"


class BaseCopySerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """The copy's name; default: the base's name with "(copy)"."""

    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
