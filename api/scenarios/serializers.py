"""Serializers of scenarios: a timed intervention added to a simulation, and its state."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from agents.models import Scenario
from runtime.scenarios import KINDS

from ..fields import StrictCharField


class ScenarioRequestSerializer(serializers.Serializer[Any]):
    """A scenario: its kind and sim time; the kind's own fields (`resident`, `statement`,
    `place`, `address`, `state`, an arrival's identity) sit beside them in the body and are
    checked by the service, a 400 naming any it does not take."""

    kind = serializers.ChoiceField(choices=list(KINDS), help_text="what happens")
    at = serializers.DateTimeField(help_text="sim time, with a time zone")
    resident = StrictCharField(required=False, help_text="whisper, leave: the resident")
    statement = StrictCharField(required=False, help_text="whisper, announce: what is said")
    place = StrictCharField(required=False, help_text="announce: a sector or arena address")
    address = StrictCharField(
        required=False, help_text="object_state: the object; arrive: where it starts"
    )
    state = StrictCharField(required=False, help_text="object_state: the state in words")
    name = StrictCharField(required=False, help_text="arrive: the newcomer's name")


class ScenarioSerializer(serializers.ModelSerializer[Scenario]):
    """A scenario and whether it is pending, applied (at `applied_step`, reaching
    `recipients`) or cancelled."""

    class Meta:
        model = Scenario
        fields = [
            "number",
            "kind",
            "at",
            "step",
            "params",
            "status",
            "added_step",
            "applied_step",
            "outcome",
            "recipients",
        ]
        read_only_fields = fields
