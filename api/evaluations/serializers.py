"""The API's shapes of evaluations: what a request asks for and what a response says."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from evaluations.conditions import Condition
from evaluations.models import Evaluation, EvaluationKind

from ..fields import StrictCharField, StrictFieldsMixin, StrictIntegerField, UniqueListField


class EvaluationRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    kinds = UniqueListField(
        child=serializers.ChoiceField(choices=EvaluationKind.choices), min_length=1
    )
    step = StrictIntegerField(min_value=0, required=False, help_text="default: now")
    conditions = UniqueListField(
        child=serializers.ChoiceField(choices=[*Condition.choices, ("human", "human")]),
        required=False,
        help_text="default: the paper's four",
    )
    facts = serializers.ListField(
        child=serializers.JSONField(),
        max_length=20,
        required=False,
        help_text='facts whose diffusion is measured and asked about ("Did you hear that '
        '<fact>?"): each a clause, or {"text", "origin", "words", "published"} '
        "(docs/evaluation.md); default: the simulation's base's",
    )
    events = serializers.ListField(
        child=serializers.JSONField(),
        max_length=20,
        required=False,
        help_text='events whose attendance is measured: {"what", "host", "place" (a sector '
        'of the town), "start", "end", "words", "published"}; default: the base\'s',
    )
    judge_profile = StrictIntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="the model profile (yours or shared) the believability judge runs on; "
        "default: the simulation's route for the judge (docs/language-models.md)",
    )
    human_answers = serializers.DictField(
        child=serializers.DictField(child=StrictCharField(max_length=2000)),
        required=False,
        help_text='the uploaded JSON file of human answers: {"<resident name>": '
        '{"<question number 1-25>": "<answer>"}}; they are ranked as the condition `human`',
    )


class EvaluationSerializer(serializers.ModelSerializer[Evaluation]):
    class Meta:
        model = Evaluation
        fields = [
            "number",
            "step",
            "subject",
            "kinds",
            "conditions",
            "facts",
            "events",
            "judge_profile",
            "status",
            "done",
            "total",
            "result",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields
