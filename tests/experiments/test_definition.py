"""Defining an experiment over REST: a good one makes a pending run per variant and seed;
every bad field is a 400 naming it and writes nothing; another user's is not found."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from experiments.models import Experiment, ExperimentRun
from tests.api import fields_of
from world.models import Base

from ..api import error_of
from .town import base_made, definition


@pytest.mark.django_db
def test_a_definition_makes_a_pending_run_per_variant_and_seed(api: APIClient) -> None:
    made = api.post("/api/experiments/", definition(base_made(api)), format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["status"] == "pending" and body["definition"]["seeds"] == [1, 2]
    runs = {(r["variant"], r["seed"], r["status"]) for r in body["runs"]}
    assert runs == {
        ("as seeded", 1, "pending"),
        ("as seeded", 2, "pending"),
        ("news left out", 1, "pending"),
        ("news left out", 2, "pending"),
    }
    assert body["progress"]["runs"] == 4 and body["progress"]["steps_done"] == 0


def _bad(base: int) -> list[tuple[str, dict[str, Any], str]]:
    good = definition(base)
    twin = {**good["variants"][1], "name": "the same again"}
    return [
        ("an unknown field", {**good, "replicates": 3}, "replicates"),
        ("zero seeds", {**good, "seeds": 0}, "seeds"),
        ("an empty seed list", {**good, "seeds": []}, "seeds"),
        ("a seed twice", {**good, "seeds": [4, 4]}, "seeds"),
        ("two identical variants", {**good, "variants": [*good["variants"], twin]}, "variants[2]"),
        (
            "variants identical once the config is normalised",
            {**good, "variants": [{"name": "a"}, {"name": "b", "config": {"cognition": "paper"}}]},
            "variants[1]",
        ),
        ("a span past the clock", {**good, "span": {"steps": 10**9}}, "span.steps"),
        (
            "a span before the start",
            {**good, "span": {"until": "2024-09-01T00:00:00Z"}},
            "span.until",
        ),
        (
            "a span past year 9000",
            {**good, "span": {"until": "8999-01-01T00:00:00Z"}},
            "span.until",
        ),
        (
            "steps and until",
            {**good, "span": {"steps": 3, "until": "2024-09-03T00:00:00Z"}},
            "span",
        ),
        ("an unknown base", {**good, "start": {"base": "no such base"}}, "start.base"),
        (
            "a bad config field",
            {**good, "variants": [{"name": "x", "config": {"ablations": ["naps"]}}]},
            "variants[0].config.ablations[0]",
        ),
        (
            "a resident not in the base",
            {
                **good,
                "variants": [
                    good["variants"][0],
                    {
                        "name": "y",
                        "seed_memories": {
                            "remove": [{"resident": "Nobody Here", "containing": "kite"}]
                        },
                    },
                ],
            },
            "variants[1].seed_memories.remove[0].resident",
        ),
        (
            "words no seed memory holds",
            {
                **good,
                "variants": [
                    good["variants"][0],
                    {
                        "name": "y",
                        "seed_memories": {
                            "remove": [{"resident": "Fenn Orlow", "containing": "zeppelin"}]
                        },
                    },
                ],
            },
            "variants[1].seed_memories.remove[0].containing",
        ),
        (
            "a fact too vague to measure",
            {**good, "measures": {"facts": ["it is"]}},
            "measures.facts[0].text",
        ),
        ("no variants", {**good, "variants": []}, "variants"),
        ("too many at once", {**good, "concurrency": 0}, "concurrency"),
    ]


@pytest.mark.django_db
def test_each_bad_definition_is_a_400_naming_its_field_and_writes_nothing(api: APIClient) -> None:
    base = base_made(api)
    rows = _rows()
    for what, body, field in _bad(base):
        refused = api.post("/api/experiments/", body, format="json")
        assert refused.status_code == 400, (what, refused.content)
        assert field in fields_of(refused), (what, error_of(refused))
    assert _rows() == rows


def _rows() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Experiment, ExperimentRun, Base))


@pytest.mark.django_db
def test_another_users_experiment_is_not_found(api: APIClient, other_api: APIClient) -> None:
    made = api.post("/api/experiments/", definition(base_made(api)), format="json").json()
    url = f"/api/experiments/{made['id']}/"
    assert other_api.get(url).status_code == 404
    for verb in ("start", "pause", "resume", "cancel"):
        assert other_api.post(f"{url}{verb}/").status_code == 404
    assert other_api.get(f"{url}results/").status_code == 404
    assert other_api.delete(url).status_code == 404
    assert other_api.get("/api/experiments/").json()["results"] == []
    assert APIClient().get(url).status_code in (401, 403)


@pytest.mark.django_db
def test_results_wait_for_the_runs_and_controls_follow_the_status(api: APIClient) -> None:
    made = api.post("/api/experiments/", definition(base_made(api)), format="json").json()
    url = f"/api/experiments/{made['id']}/"
    assert api.get(f"{url}results/").status_code == 409
    assert api.post(f"{url}pause/").status_code == 409  # not running
    assert api.post(f"{url}resume/").status_code == 409
    cancelled = api.post(f"{url}cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert {r["status"] for r in cancelled.json()["runs"]} == {"cancelled"}
    assert api.post(f"{url}start/").status_code == 409
    assert api.delete(url).status_code == 204
