"""The one path syntax of a field at fault: names by dots, 0-based indexes in brackets, a
key that is no name quoted; and a pydantic error's location in it, every error kept."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from world.fieldpath import field_path, loc_errors, path_join


def test_names_indexes_and_keys_that_are_no_names() -> None:
    assert field_path("lanterns", 0, "wicks", 2) == "lanterns[0].wicks[2]"
    assert field_path("legend", "#", "arena") == 'legend["#"].arena'
    assert field_path("legend", "q") == "legend.q"
    assert field_path() == ""
    assert path_join("variants[1]", "config.seed") == "variants[1].config.seed"
    assert path_join("rows", "[3]") == "rows[3]"
    assert path_join("", "name") == "name" and path_join("name", "") == "name"


class Wick(BaseModel):
    model_config = ConfigDict(extra="forbid")
    length: Annotated[StrictInt, Field(ge=1)]


class Lantern(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wicks: list[Wick]
    size: StrictInt | list[StrictInt]  # a union: its members' tags are no fields


def test_every_pydantic_error_is_kept_at_its_path() -> None:
    with pytest.raises(ValidationError) as caught:
        Lantern.model_validate(
            {"wicks": [{"length": 3}, {"length": 0, "Colour": "red"}], "size": "big"}
        )
    errors = loc_errors(caught.value.errors(), prefix="lantern")
    assert set(errors) == {
        "lantern.wicks[1].length",
        "lantern.wicks[1].Colour",  # an unknown key keeps its name, capitals and all
        "lantern.size",
    }
    assert len(errors["lantern.size"]) == 2  # one message per member of the union
