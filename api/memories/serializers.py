"""Serializers of the memory stream: memories, retrieval requests and results, evidence trees."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memories.models import Memory
from memories.retrieval import Mode
from memories.selectors import EvidenceNode

from ..fields import StrictBooleanField, StrictCharField, StrictFieldsMixin, StrictIntegerField


class MemorySerializer(serializers.ModelSerializer[Memory]):
    """One entry of a resident's memory stream; `number` counts its memories from 1."""

    created = serializers.DateTimeField(read_only=True, help_text="sim time")
    last_accessed = serializers.DateTimeField(
        read_only=True, help_text="sim time of the last retrieval that returned it"
    )
    evidence = serializers.ListField(
        child=serializers.IntegerField(),
        source="evidence_numbers",
        read_only=True,
        help_text="numbers of the memories a reflection cites, in citation order",
    )

    class Meta:
        model = Memory
        fields = [
            "number",
            "kind",
            "description",
            "subject",
            "predicate",
            "object",
            "created",
            "last_accessed",
            "importance",
            "rating_due",
            "depth",
            "evidence",
        ]
        read_only_fields = fields


class RetrievalRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """What to recall; unknown fields are rejected."""

    query = StrictCharField(min_length=1, max_length=1000, help_text="what to recall")
    k = StrictIntegerField(
        min_value=1, max_value=100, required=False, default=10, help_text="memories to return"
    )
    mode = serializers.ChoiceField(
        choices=[m.value for m in Mode],
        required=False,
        default=Mode.EXACT.value,
        help_text="exact: score every memory; scale: rescore nearest, recent and important ones",
    )
    touch = StrictBooleanField(
        required=False,
        default=False,
        help_text="default false (a read changes nothing); true records the access as "
        "retrieval by the agent would: the returned memories' last access becomes the sim "
        "time, logged as a memory.touched event",
    )


class WeightsSerializer(serializers.Serializer[Any]):
    """The simulation's weights of the three terms."""

    recency = serializers.FloatField()
    importance = serializers.FloatField()
    relevance = serializers.FloatField()


class RetrievedSerializer(serializers.Serializer[Any]):
    """A retrieved memory with the raw terms of its score."""

    memory = MemorySerializer()
    recency = serializers.FloatField(help_text="decay ** hours since last access")
    importance = serializers.FloatField(help_text="importance, 1..10")
    relevance = serializers.FloatField(help_text="cosine similarity to the query")
    score = serializers.FloatField(help_text="weighted sum of the min-max normalised terms")


class RetrievalSerializer(serializers.Serializer[Any]):
    """A ranking of a resident's memories for a query, best first."""

    query = serializers.CharField()
    mode = serializers.ChoiceField(choices=[m.value for m in Mode])
    weights = WeightsSerializer()
    decay = serializers.FloatField(help_text="the resident's recency decay per sim hour")
    now = serializers.DateTimeField(help_text="the simulation's sim time")
    results = RetrievedSerializer(many=True)


class EvidenceNodeSerializer(serializers.Serializer[EvidenceNode]):
    """A memory and, for a reflection, the memories it cites, each with its own evidence."""

    memory = MemorySerializer()
    evidence = serializers.SerializerMethodField()

    @extend_schema_field(
        {
            "type": "array",
            "items": {"$ref": "#/components/schemas/EvidenceNode"},
            "description": "the cited memories' trees, in citation order",
        }
    )
    def get_evidence(self, node: EvidenceNode) -> list[dict[str, Any]]:
        return [EvidenceNodeSerializer(child).data for child in node["evidence"]]


def evidence_tree_data(node: EvidenceNode) -> dict[str, Any]:
    """What `EvidenceNodeSerializer(node).data` gives, ten times faster: one MemorySerializer
    for the whole tree (DRF builds a serializer's fields anew for every instance) and each
    memory serialized once, however many of the tree's reflections cite it."""
    memories = MemorySerializer()
    done: dict[int, Any] = {}

    def walk(node: EvidenceNode) -> dict[str, Any]:
        memory = node["memory"]
        if memory.pk not in done:
            done[memory.pk] = memories.to_representation(memory)
        return {"memory": done[memory.pk], "evidence": [walk(child) for child in node["evidence"]]}

    return walk(node)
