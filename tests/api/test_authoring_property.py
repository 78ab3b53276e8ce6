"""A property of the base and town schemas: hypothesis makes bad input out of a valid base
and a valid town file (a wrong type, a missing field, a size or time out of range, a name
taken up to case, an address the town does not have, a field no one knows) and every one
of them is a 400 whose body names the field, with nothing written."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from agents.bases.format import Resident
from tests.api import fields_of
from world.models import Base, Location, Town

from .test_town_authoring import COTTAGE, GRID, base_in

EXAMPLES = 40
Bad = tuple[dict[str, Any], str]  # (the body, the field its 400 must name)

# Text a database can hold and numbers a column can (NUL, lone surrogates and integers past
# 64 bits are the parser's own 400, no field's: tests/runtime/controls/test_hostile_json.py).
ints = st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
word = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=12)
not_text = st.one_of(
    ints,
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.lists(ints, max_size=3),
    st.dictionaries(word, ints, max_size=2),
)
not_int = st.one_of(
    text,
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.lists(ints, max_size=2),
)
not_list = st.one_of(text, ints, st.booleans(), st.none(), st.dictionaries(word, word))


def _set(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    *parents, last = path.split(".")
    here: Any = body
    for part in parents:
        here = here[int(part)] if isinstance(here, list) else here[part]
    here[int(last) if isinstance(here, list) else last] = value
    return body


def _drop(body: dict[str, Any], path: str) -> dict[str, Any]:
    body = copy.deepcopy(body)
    *parents, last = path.split(".")
    here: Any = body
    for part in parents:
        here = here[int(part)] if isinstance(here, list) else here[part]
    del here[last]
    return body


def _case_twin(name: str) -> str:
    """The same name in another case."""
    twin = name.swapcase()
    assert twin != name and twin.casefold() == name.casefold()
    return twin


# --- bad town files ------------------------------------------------------------------------


def _bad_towns() -> st.SearchStrategy[Bad]:
    known = {"format", "name", "world", "tile_size", "rows", "legend"}
    width = len(GRID["rows"][0])
    return st.one_of(
        st.tuples(st.sampled_from(["name", "world"]), not_text).map(
            lambda f: (_set(GRID, f[0], f[1]), f[0])
        ),
        not_int.map(lambda v: (_set(GRID, "tile_size", v), "tile_size")),
        ints.filter(lambda v: not 8 <= v <= 128).map(
            lambda v: (_set(GRID, "tile_size", v), "tile_size")
        ),
        not_list.map(lambda v: (_set(GRID, "rows", v), "rows")),
        st.one_of(not_text, text.filter(lambda t: t != GRID["format"])).map(
            lambda v: (_set(GRID, "format", v), "format")
        ),
        st.sampled_from(["name", "world", "rows", "legend"]).map(lambda f: (_drop(GRID, f), f)),
        st.integers(201, 260).map(lambda n: (_set(GRID, "rows", ["." * width] * n), "rows")),
        st.integers(201, 300).map(lambda n: (_set(GRID, "rows", ["." * n] * 3), "rows.0")),
        st.integers(1, 6).map(
            lambda row: (_set(GRID, f"rows.{row}", GRID["rows"][row][:-1]), f"rows.{row}")
        ),
        st.sampled_from(["c", "s"]).map(
            lambda char: (
                _set(
                    GRID,
                    "legend.z",
                    {**GRID["legend"][char], "sector": _case_twin(GRID["legend"][char]["sector"])},
                ),
                "legend.z",
            )
        ),
        word.filter(lambda k: k not in known).map(lambda k: (_set(GRID, k, 1), k)),
        st.sampled_from("csbd").map(
            lambda char: (_set(GRID, f"legend.{char}.hue", "red"), f"legend.{char}")
        ),
    )


# --- bad base files ------------------------------------------------------------------------


def _bad_bases(base: dict[str, Any]) -> st.SearchStrategy[Bad]:
    not_a_time = st.one_of(
        st.sampled_from(["yesterday", "2024-13-01T00:00:00Z", "", "noon", "2024-02-30"]),
        st.none(),
        st.lists(ints, max_size=2),
        st.dictionaries(word, word, max_size=2),
    )
    out_of_reach = st.sampled_from(
        ["1850-01-01T00:00:00Z", "1899-12-31T23:00:00Z", "8999-12-01T00:00:00Z"]
    )
    nowhere = word.map(lambda w: f"Tallow Lane:Nowhere {w}:attic")
    return st.one_of(
        st.tuples(st.sampled_from(["name", "town"]), not_text).map(
            lambda f: (_set(base, f[0], f[1]), f[0])
        ),
        st.one_of(not_a_time, out_of_reach).map(
            lambda v: (_set(base, "start_time", v), "start_time")
        ),
        st.one_of(not_int, ints.filter(lambda v: not 1 <= v <= 3600)).map(
            lambda v: (_set(base, "sec_per_step", v), "sec_per_step")
        ),
        st.one_of(not_list, st.just([])).map(lambda v: (_set(base, "residents", v), "residents")),
        st.sampled_from(["name", "town", "start_time", "residents"]).map(
            lambda f: (_drop(base, f), f)
        ),
        st.sampled_from(["name", "start"]).map(
            lambda f: (_drop(base, f"residents.0.{f}"), f"residents.0.{f}")
        ),
        st.one_of(
            not_int.filter(lambda v: v is not None),  # no age is an age
            ints.filter(lambda v: not 0 <= v <= 150),
        ).map(lambda v: (_set(base, "residents.1.age", v), "residents.1.age")),
        ints.filter(lambda v: not 1 <= v <= 64).map(
            lambda v: (_set(base, "residents.0.vision_radius", v), "residents.0.vision_radius")
        ),
        st.integers(1001, 3000).map(
            lambda n: (
                _set(base, "residents.0.seed_memories", ["m" * n]),
                "residents.0.seed_memories.0",
            )
        ),
        st.just((_set(base, "residents.1.name", _case_twin("Odo Wick")), "residents.1.name")),
        nowhere.map(
            lambda a: (_set(base, "residents.1.living_area", a), "residents.1.living_area")
        ),
        nowhere.map(
            lambda a: (_set(base, "residents.0.start", {"address": a}), "residents.0.start.address")
        ),
        st.tuples(st.integers(11, 500), st.integers(0, 500)).map(
            lambda xy: (
                _set(base, "residents.0.start", {"tile": list(xy)}),
                "residents.0.start.tile",
            )
        ),
        word.map(lambda w: (_set(base, "town", f"no_{w}_town"), "town")),
        st.just((_set(base, "town", "bobs_lane"), "town")),  # another user's town
        word.filter(lambda k: k not in Resident.model_fields).map(
            lambda k: (_set(base, f"residents.0.{k}", "x"), f"residents.0.{k}")
        ),
    )


# --- the property --------------------------------------------------------------------------


def _rows() -> tuple[int, int, int]:
    return Town.objects.count(), Location.objects.count(), Base.objects.count()


def _check(api: APIClient, url: str, bad: Bad) -> None:
    body, field = bad
    before = _rows()
    response = api.post(url, body, format="json")
    where = f"POST {url} naming {field}: {str(body)[:300]}"
    assert response.status_code == 400, (where, response.status_code, response.content[:300])
    detail = fields_of(response)
    # The edit's dotted path as the API names it: indexes in brackets (rows.2 -> rows[2]).
    named = re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", field)
    assert any(
        key == named or (key or "").startswith((f"{named}.", f"{named}[")) for key in detail
    ), (where, detail)
    assert _rows() == before, where


def _property(strategy: st.SearchStrategy[Bad], run: Callable[[Bad], None]) -> None:
    @hypothesis_settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(bad=strategy)
    def check(bad: Bad) -> None:
        run(bad)

    check()


@pytest.mark.django_db
def test_bad_town_files_are_400s_naming_the_field_and_write_nothing(api: APIClient) -> None:
    assert api.post("/api/towns/", GRID, format="json").status_code == 201  # names taken too
    taken = {**GRID, "name": GRID["name"].upper()}
    _check(api, "/api/towns/", (taken, "name"))
    _property(_bad_towns(), lambda bad: _check(api, "/api/towns/", bad))


@pytest.mark.django_db
def test_bad_base_files_are_400s_naming_the_field_and_write_nothing(
    api: APIClient, other_api: APIClient
) -> None:
    assert api.post("/api/towns/", GRID, format="json").status_code == 201
    theirs = other_api.post("/api/towns/", {**GRID, "name": "bobs_lane"}, format="json")
    assert theirs.status_code == 201
    base = base_in("tallow_lane")
    assert COTTAGE in base["residents"][0]["living_area"]
    assert api.post("/api/bases/", base, format="json").status_code == 201
    _check(api, "/api/bases/", ({**base, "name": "LANE FOLK"}, "name"))
    _property(
        _bad_bases({**base, "name": "lane folk two"}), lambda b: _check(api, "/api/bases/", b)
    )
