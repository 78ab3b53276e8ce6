"""Serializers of the model-call ledger: one call, and a simulation's totals."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from llm.models import ModelCall


class AttemptSerializer(serializers.Serializer[Any]):
    outcome = serializers.CharField(
        help_text="ok, invalid_output, rate_limited, server_error, timeout, connection_error, "
        "format_unsupported, rejected or crashed"
    )
    error = serializers.CharField()
    latency_ms = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    reply = serializers.CharField(help_text="the reply, cut at 2,000 characters")
    response_format = serializers.CharField(
        help_text="the rung of the server's format ladder: json_schema, json_object_schema, "
        "json_schema_grammar, guided_json, json_object or text"
    )


class ModelCallSerializer(serializers.ModelSerializer[ModelCall]):
    attempt_log = AttemptSerializer(many=True, read_only=True)
    output = serializers.JSONField(read_only=True, help_text="the validated output; null on error")
    usage = serializers.DictField(
        child=serializers.IntegerField(), read_only=True, help_text="tokens the server reported"
    )

    class Meta:
        model = ModelCall
        fields = [
            "id",
            "agent",
            "agent_name",
            "step",
            "sim_time",
            "task",
            "backend",
            "model",
            "prompt",
            "raw_reply",
            "output",
            "prompt_tokens",
            "completion_tokens",
            "usage",
            "latency_ms",
            "attempts",
            "attempt_log",
            "error",
            "fallback",
            "profile",
            "cost",
            "created_at",
            "finished_at",
            "ahead",
            "takes",
            "taken_at",
            "taken_step",
            "taken_by",
        ]
        read_only_fields = fields


class TotalsSerializer(serializers.Serializer[Any]):
    calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    tokens = serializers.IntegerField()
    failed = serializers.IntegerField(help_text="calls that ended without an output")
    fallbacks = serializers.IntegerField(
        help_text="calls whose output stayed invalid and took the task's fail-safe answer"
    )
    attempts = serializers.IntegerField(help_text="HTTP requests, retries and re-asks included")
    latency_ms = serializers.IntegerField(help_text="summed wall time of the calls")
    cost = serializers.DecimalField(
        max_digits=16, decimal_places=8, help_text="the calls' tokens at their profiles' prices"
    )


class TaskTotalsSerializer(TotalsSerializer):
    task = serializers.CharField()


class AgentTotalsSerializer(TotalsSerializer):
    agent_name = serializers.CharField(help_text="empty for calls made for no agent")


class ModelTotalsSerializer(TotalsSerializer):
    backend = serializers.CharField()
    model = serializers.CharField()


class SimHourTotalsSerializer(TotalsSerializer):
    sim_hour = serializers.DateTimeField(allow_null=True, help_text="sim time, to the hour")


class BudgetSerializer(serializers.Serializer[Any]):
    calls = serializers.IntegerField(allow_null=True, help_text="null: no limit")
    tokens = serializers.IntegerField(allow_null=True, help_text="null: no limit")
    calls_used = serializers.IntegerField()
    tokens_used = serializers.IntegerField()
    money = serializers.DecimalField(
        max_digits=16, decimal_places=4, allow_null=True, help_text="null: no money budget"
    )
    money_used = serializers.DecimalField(max_digits=16, decimal_places=8)


class ModelCallSummarySerializer(serializers.Serializer[Any]):
    simulation = serializers.IntegerField()
    totals = TotalsSerializer()
    budget = BudgetSerializer()
    by_task = TaskTotalsSerializer(many=True)
    by_agent = AgentTotalsSerializer(many=True)
    by_model = ModelTotalsSerializer(many=True)
    by_sim_hour = SimHourTotalsSerializer(many=True)


class EstimateQuerySerializer(serializers.Serializer[Any]):
    """The span to estimate."""

    hours = serializers.FloatField(
        min_value=0.01, max_value=720, help_text="sim hours from the simulation's current step"
    )


class RangeSerializer(serializers.Serializer[Any]):
    expected = serializers.FloatField()
    low = serializers.FloatField()
    high = serializers.FloatField()


class MoneyRangeSerializer(serializers.Serializer[Any]):
    expected = serializers.DecimalField(max_digits=16, decimal_places=4)
    low = serializers.DecimalField(max_digits=16, decimal_places=4)
    high = serializers.DecimalField(max_digits=16, decimal_places=4)


class TaskEstimateSerializer(serializers.Serializer[Any]):
    task = serializers.CharField()
    profile = serializers.IntegerField(
        allow_null=True, help_text="the profile it routes to; null: the settings"
    )
    calls = serializers.FloatField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost = serializers.DecimalField(max_digits=16, decimal_places=4)


class EstimateSerializer(serializers.Serializer[Any]):
    simulation = serializers.IntegerField()
    hours = serializers.FloatField()
    residents = serializers.IntegerField()
    from_step = serializers.IntegerField()
    basis = serializers.ChoiceField(
        ["ledger", "default"],
        help_text="ledger: earlier runs of the same base; default: the stated default table",
    )
    runs = serializers.ListField(
        child=serializers.IntegerField(), help_text="the earlier runs the rates come from"
    )
    extrapolated_hours = serializers.FloatField(
        help_text="hours of the span past what an earlier run reached (its mean rate there)"
    )
    calls = RangeSerializer()
    tokens = RangeSerializer()
    cost = MoneyRangeSerializer(help_text="at the prices of the profiles each task routes to")
    wall_seconds = RangeSerializer(
        allow_null=True, help_text="from earlier runs on the same models; null: none yet"
    )
    by_task = TaskEstimateSerializer(many=True)
