"""The persona's field names, written once in agents.persona, are the fields of every shape
that carries an identity: the resident's row, a base's resident, a newcomer."""

from __future__ import annotations

import dataclasses

from agents.bases.format import Resident
from agents.persona import IDENTITY_FIELDS, PARAMETER_FIELDS, PERSONA_FIELDS
from api.residents.serializers import NewcomerSerializer, ResidentSerializer
from runtime.controls.stepping_in import Identity
from world.models import Agent


def test_the_row_holds_every_identity_field() -> None:
    columns = {field.name for field in Agent._meta.get_fields()}
    assert set(IDENTITY_FIELDS) <= columns


def test_a_base_resident_and_a_newcomer_carry_the_persona() -> None:
    assert set(PERSONA_FIELDS) | set(PARAMETER_FIELDS) <= set(Resident.model_fields)
    assert tuple(field.name for field in dataclasses.fields(Identity)) == PERSONA_FIELDS
    assert set(PERSONA_FIELDS) <= set(NewcomerSerializer().fields)


def test_the_api_shows_the_persona_and_parameters_in_order() -> None:
    fields = list(ResidentSerializer.Meta.fields)
    start = fields.index(PERSONA_FIELDS[0])
    assert fields[start : start + 14] == [*PERSONA_FIELDS, *PARAMETER_FIELDS]
