"""Serializers of model profiles and of a simulation's routes to them. The key itself is
never a field: a profile names only the environment variable that holds it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from llm.models import ModelProfile

from ..fields import StrictFieldsMixin


class ModelProfileSerializer(serializers.ModelSerializer[ModelProfile]):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = ModelProfile
        fields = [
            "id",
            "owner",
            "name",
            "shared",
            "backend",
            "base_url",
            "model",
            "api_key_env",
            "dialect",
            "context_tokens",
            "server_slots",
            "priority",
            "send_task",
            "temperature",
            "input_price",
            "output_price",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "owner", "created_at", "updated_at"]
        # The owner-and-name constraint is checked by the service's full_clean.
        validators: list[Any] = []


class ProfileCheckSerializer(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    reachable = serializers.BooleanField()
    dialect = serializers.CharField(help_text="the dialect found (auto) or named")
    structured_output = serializers.BooleanField(
        help_text="the server held its reply to the task's JSON schema"
    )
    latency_ms = serializers.IntegerField()
    model = serializers.CharField()
    message = serializers.CharField()


class SimulationModelsSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    routes = serializers.DictField(
        child=serializers.IntegerField(allow_null=True),
        required=False,
        help_text="group (residents, a task group or a task) -> profile id; null removes",
    )
    groups = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), read_only=True
    )
    budget_money = serializers.DecimalField(
        max_digits=16, decimal_places=4, allow_null=True, required=False, min_value=0
    )
    cost = serializers.DecimalField(max_digits=16, decimal_places=8, read_only=True)
