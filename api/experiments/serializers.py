"""Serializers of experiments: the definition as documented (checked by
experiments.definition), an experiment with its progress and runs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from experiments.models import Experiment
from experiments.selectors import experiment_progress, experiment_runs


class ExperimentDefinitionSerializer(serializers.Serializer[Any]):
    """For the schema only: the body is checked whole by experiments.definition (unknown
    fields, zero seeds, identical variants, a span the clock cannot reach: a 400 naming
    the field)."""

    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, max_length=2000)
    start = serializers.JSONField(
        help_text='{"base": <id or name>} for new towns, or {"simulation": <id>, "step": <n>} '
        "for forks of one step (a counterfactual)"
    )
    span = serializers.JSONField(help_text='{"steps": <n>} or {"until": "<sim time>"}')
    seeds = serializers.JSONField(help_text="how many (1..100: seeds 1..n), or a list of seeds")
    variants = serializers.JSONField(
        help_text='[{"name", "config", "seed_memories": {"remove": [{"resident", '
        '"containing"}], "add": [{"resident", "memory"}]}, "scenarios": {"add": [...], '
        '"cancel": [numbers]}, "models": {group: profile id}}]; the first is the control'
    )
    measures = serializers.JSONField(
        required=False,
        help_text='{"facts": [...], "events": [...], "every_minutes": 60}; default: the '
        "base's named facts and events",
    )
    concurrency = serializers.IntegerField(
        required=False, min_value=1, max_value=16, help_text="runs at once (default 2)"
    )


class ExperimentProgressSerializer(serializers.Serializer[Any]):
    runs = serializers.IntegerField()
    by_status = serializers.DictField(child=serializers.IntegerField())
    steps_done = serializers.IntegerField()
    steps_total = serializers.IntegerField()
    steps_per_second = serializers.FloatField(allow_null=True)
    seconds_left = serializers.FloatField(allow_null=True)


class ExperimentRunSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    variant = serializers.CharField()
    seed = serializers.IntegerField()
    status = serializers.CharField()
    reason = serializers.CharField()
    simulation = serializers.IntegerField(allow_null=True)
    step = serializers.IntegerField(allow_null=True)
    target_step = serializers.IntegerField(allow_null=True)


class ExperimentSerializer(serializers.ModelSerializer[Experiment]):
    progress = serializers.SerializerMethodField()
    runs = serializers.SerializerMethodField()

    class Meta:
        model = Experiment
        fields = [
            "id",
            "name",
            "status",
            "status_reason",
            "definition",
            "variant_bases",
            "progress",
            "runs",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(ExperimentProgressSerializer)
    def get_progress(self, experiment: Experiment) -> dict[str, Any]:
        return ExperimentProgressSerializer(experiment_progress(experiment=experiment)).data

    @extend_schema_field(ExperimentRunSerializer(many=True))
    def get_runs(self, experiment: Experiment) -> Any:
        return ExperimentRunSerializer(experiment_runs(experiment=experiment), many=True).data
