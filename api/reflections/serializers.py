"""Serializers of "why does this resident believe X": a statement in, reflections out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memories.selectors import EvidenceNode

from ..fields import StrictCharField, StrictFieldsMixin, StrictIntegerField
from ..memories.serializers import EvidenceNodeSerializer, evidence_tree_data


class WhyRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A statement to explain; unknown fields are rejected."""

    statement = StrictCharField(
        min_length=1, max_length=1000, help_text="what the resident might believe"
    )
    k = StrictIntegerField(
        min_value=1, max_value=20, required=False, default=5, help_text="reflections to return"
    )


@extend_schema_field(EvidenceNodeSerializer)
class EvidenceTreeField(serializers.Field):  # type: ignore[type-arg]
    """An evidence tree, as `EvidenceNodeSerializer` documents it."""

    def to_representation(self, value: EvidenceNode) -> dict[str, Any]:
        return evidence_tree_data(value)


class ExplanationSerializer(serializers.Serializer[Any]):
    """A reflection that bears on the statement: its score and its evidence tree."""

    recency = serializers.FloatField(source="scored.recency", help_text="decay ** hours")
    importance = serializers.FloatField(source="scored.importance", help_text="1..10")
    relevance = serializers.FloatField(
        source="scored.relevance", help_text="cosine similarity to the statement"
    )
    score = serializers.FloatField(
        source="scored.score", help_text="weighted sum of the terms, normalised among reflections"
    )
    tree = EvidenceTreeField(
        read_only=True, help_text="the reflection and what it cites, down to observations"
    )


class WhySerializer(serializers.Serializer[Any]):
    """The resident's reflections ranked for the statement, best first."""

    statement = serializers.CharField()
    now = serializers.DateTimeField(help_text="the simulation's sim time")
    explanations = ExplanationSerializer(many=True)
