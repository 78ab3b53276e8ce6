"""Serializers of talking to a resident: interviews and the inner voice."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from agents.models import Interview

from ..fields import StrictBooleanField, StrictCharField, StrictFieldsMixin, text_field
from ..memories.serializers import MemorySerializer

SESSION_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


# --- interview -----------------------------------------------------------------------------


class InterviewRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A question to a resident, asked as someone the user names; unknown fields rejected."""

    persona = text_field(200, 'who asks, e.g. "a news reporter"')
    question = text_field(2000, "what to ask")
    session = StrictCharField(
        validators=[RegexValidator(SESSION_PATTERN)],
        required=False,
        help_text="an earlier answer's session, to continue that interview; default: a new one",
    )
    remember = StrictBooleanField(
        required=False,
        default=False,
        help_text="also keep the exchange as one of the resident's memories (a conversation)",
    )


class InterviewSerializer(serializers.ModelSerializer[Interview]):
    """A question put to a resident and its answer; `number` counts a simulation's turns."""

    resident = serializers.CharField(source="agent.name", read_only=True)

    class Meta:
        model = Interview
        fields = [
            "number",
            "resident",
            "session",
            "persona",
            "question",
            "answer",
            "remembered",
            "step",
            "sim_time",
        ]
        read_only_fields = fields


# --- the inner voice -----------------------------------------------------------------------


class WhisperRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """A statement the resident takes as its own thought; unknown fields are rejected."""

    statement = text_field(1000, "e.g. I should invite Klaus Mueller to my party")


class WhisperSerializer(serializers.Serializer[Any]):
    """A whisper as logged: its event, and the thought memory it made."""

    seq = serializers.IntegerField(help_text="the agent.whispered event's seq")
    step = serializers.IntegerField()
    sim_time = serializers.DateTimeField()
    resident = serializers.CharField()
    statement = serializers.CharField()
    memory = MemorySerializer(allow_null=True, help_text="the thought memory")
