"""Serializers of simulations: a run, its creation, fork and run control, its progress and log."""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.bases import BASES
from runtime.pace import PACE_MAX, PACE_MIN
from world.models import Event, PaceAlone, Simulation, SimulationStatus

from ..fields import (
    CalendarDateTimeField,
    ConfigField,
    StrictCharField,
    StrictFieldsMixin,
    StrictIntegerField,
    StrictNumberField,
    config_check_strictly,
)

MAX_SEED = 2**31 - 1
MAX_SEC_PER_STEP = 3600


class SimulationSerializer(serializers.ModelSerializer[Simulation]):
    """A run of a town and its residents; `step` is the last committed step."""

    sim_time = serializers.DateTimeField(read_only=True, help_text="sim time at `step`")
    resident_count = serializers.IntegerField(read_only=True)
    role = serializers.SerializerMethodField(
        help_text="the requester's: owner, or guest (the owner shares it with them)"
    )

    class Meta:
        model = Simulation
        fields = [
            "id",
            "name",
            "town",
            "base",
            "start_time",
            "sim_time",
            "sec_per_step",
            "step",
            "status",
            "status_reason",
            "pace",
            "pace_alone",
            "seed",
            "config",
            "parent",
            "forked_at_step",
            "created_at",
            "resident_count",
            "share",
            "role",
        ]
        read_only_fields = fields

    def get_role(self, simulation: Simulation) -> Literal["owner", "guest"]:
        request = self.context.get("request")
        user_id = getattr(getattr(request, "user", None), "pk", None)
        return "owner" if request is None or simulation.owner_id == user_id else "guest"


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class BaseRefField(serializers.Field):  # type: ignore[type-arg]
    """A base by id (an integer) or by name (a string)."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, bool) or not isinstance(data, int | str) or data == "":
            raise serializers.ValidationError("a base's id (an integer) or its name (a string)")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class SimulationCreateSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A new simulation of a base; unknown fields are rejected."""

    base = BaseRefField(
        help_text="a base's id, or the name of one of yours or of a shipped one ("
        + ", ".join(sorted(BASES))
        + ")"
    )
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    seed = StrictIntegerField(min_value=0, max_value=MAX_SEED, required=False, default=0)
    sec_per_step = StrictIntegerField(
        min_value=1,
        max_value=MAX_SEC_PER_STEP,
        required=False,
        allow_null=True,
        default=None,
        help_text="sim seconds per step; default: the base's",
    )
    config = ConfigField(
        required=False, default=dict, help_text="see agents.config.SimulationConfig"
    )
    start_time = CalendarDateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="sim time at step 0; default: the base's",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        config_check_strictly(attrs["config"])
        return attrs


class SimulationForkSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """Where to fork; unknown fields are rejected."""

    step = StrictIntegerField(
        min_value=0, required=False, help_text="last step to keep; default: the current step"
    )
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    seed = StrictIntegerField(
        min_value=0,
        max_value=MAX_SEED,
        required=False,
        help_text="the seed of the steps after the fork (a counterfactual twin with other "
        "draws); default: the source's",
    )


class SimulationRunSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """How far to run: a number of steps, or a sim time to reach (exactly one)."""

    steps = StrictIntegerField(min_value=1, max_value=1_000_000, required=False)
    until = CalendarDateTimeField(
        required=False, help_text="sim time to run to, at most 1,000,000 steps ahead"
    )
    pace = StrictNumberField(
        min_value=PACE_MIN,
        max_value=PACE_MAX,
        allow_null=True,
        required=False,
        help_text="sim seconds per wall second to keep (10: one 10 s step a second), kept "
        "for later runs and resumes; null: as fast as it can; absent: the simulation's own",
    )
    pace_alone = serializers.ChoiceField(
        choices=PaceAlone.choices,
        required=False,
        help_text="what a paced run does while nobody is in the town (no resident a user "
        "controls): keep its pace, run as fast as it can, or pause; kept like `pace`",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if ("steps" in attrs) == ("until" in attrs):
            raise serializers.ValidationError("give exactly one of steps and until")
        return attrs


class ProgressSerializer(serializers.Serializer[Any]):
    """Where a run stands."""

    status = serializers.ChoiceField(choices=[s.value for s in SimulationStatus])
    reason = serializers.CharField()
    step = serializers.IntegerField()
    target_step = serializers.IntegerField(allow_null=True)
    sim_time = serializers.DateTimeField()
    agent_steps_per_second = serializers.FloatField(allow_null=True)
    model_calls = serializers.IntegerField()
    fallback_rate = serializers.FloatField(
        allow_null=True,
        help_text="share of model calls whose output stayed invalid and took the task's "
        "fail-safe answer (the offline policy); null before any call ended",
    )
    waiting_for = serializers.CharField(
        help_text="what a running simulation waits for now; a stopped one's reason"
    )


class EventSerializer(serializers.ModelSerializer[Event]):
    """One entry of a simulation's append-only log; `seq` is gap-free from 1."""

    class Meta:
        model = Event
        fields = ["seq", "step", "sim_time", "kind", "agent", "payload", "created_at"]
        read_only_fields = fields
