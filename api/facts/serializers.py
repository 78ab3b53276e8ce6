"""JSON shapes of a simulation's named facts and who holds one (the viewer's "Colour by
fact")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from agents.bases.format import MAX_MEASURES

MAX_CLAUSE = 200  # as a base's fact (agents.bases.format.Clause)


class FactSerializer(serializers.Serializer[Any]):
    text = serializers.CharField(help_text='a clause: "the library closes early on Friday"')
    origin = serializers.CharField(
        allow_null=True, help_text="the resident it starts from, when known"
    )
    words = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="groups of words or phrases: a sentence states the fact when it holds an "
        "entry of each group at the start of a word; empty: the offline rule",
    )
    published = serializers.CharField(help_text="what a study reported of it")


class FactsSerializer(serializers.Serializer[Any]):
    facts = FactSerializer(many=True, help_text=f"at most {MAX_MEASURES}")


class FactQuerySerializer(serializers.Serializer[Any]):
    fact = serializers.CharField(
        max_length=MAX_CLAUSE,
        help_text="the fact, a clause; one the base names takes its words and origin",
    )
    words = serializers.ListField(
        child=serializers.CharField(max_length=8 * 61),
        required=False,
        max_length=8,
        help_text="repeat for each group; a group's words or phrases separated by commas, "
        "e.g. `words=party&words=hobbs cafe,valentine`",
    )
    origin = serializers.CharField(
        max_length=MAX_CLAUSE, required=False, help_text="the resident it starts from"
    )

    def validate_words(self, groups: list[str]) -> list[list[str]]:
        return [[entry.strip() for entry in group.split(",")] for group in groups]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # A query's empty parameter would be taken as absent: `origin=` is a mistake.
        if "origin" in self.initial_data and not attrs.get("origin"):
            raise serializers.ValidationError({"origin": ["name a resident, or leave it out"]})
        return attrs


class HolderSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    step = serializers.IntegerField(help_text="the first step at which it held the fact")
    sim_time = serializers.DateTimeField()
    told_by = serializers.CharField(
        allow_null=True,
        help_text="the resident who told it (its first memo of the fact naming a teller); "
        "null: nobody did (the source, a seed memory, a whisper, its own thought)",
    )
    hop = serializers.IntegerField(
        allow_null=True,
        help_text="tellers on the shortest chain back to the source (0: the source); null: unknown",
    )


class HoldersSerializer(serializers.Serializer[Any]):
    fact = FactSerializer(source="fact.as_json")
    source = serializers.CharField(  # type: ignore[assignment]  # a field, not Field.source
        allow_null=True,
        help_text="the resident it starts from: the fact's origin, or the first to hold it",
    )
    residents = serializers.IntegerField(help_text="how many residents the simulation has had")
    step = serializers.IntegerField(help_text="the simulation's step when read")
    holders = HolderSerializer(many=True, help_text="by the first step they held it at")
