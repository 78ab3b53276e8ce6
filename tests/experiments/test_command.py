"""`manage.py experiment`: a definition from a JSON file, its status, its report's files;
a bad file names the field and writes nothing. The admin lists experiments with progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from experiments.making import variant_bases_make
from experiments.models import Experiment

from .town import base_made, definition


@pytest.mark.django_db
def test_a_definition_file_makes_an_experiment(
    api: APIClient, user: User, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kite.json"
    path.write_text(json.dumps(definition(base_made(api))))
    call_command("experiment", "create", str(path), "--user", user.username)
    experiment = Experiment.objects.get()
    assert experiment.owner == user and experiment.runs.count() == 4
    call_command("experiment", "status", str(experiment.pk))
    out = capsys.readouterr().out
    assert "4 runs" in out and "4 pending" in out and "0 of 120 steps" in out
    with pytest.raises(CommandError, match="not done"):
        call_command("experiment", "report", str(experiment.pk), "--out", str(tmp_path / "r"))


@pytest.mark.django_db
def test_a_bad_file_names_the_field(api: APIClient, user: User, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**definition(base_made(api)), "seeds": 0}))
    with pytest.raises(CommandError, match="seeds"):
        call_command("experiment", "create", str(path), "--user", user.username)
    assert not Experiment.objects.exists()


@pytest.mark.django_db
def test_the_admin_shows_each_experiment_with_its_runs(api: APIClient, staff: Client) -> None:
    made = api.post("/api/experiments/", definition(base_made(api)), format="json").json()
    listing = staff.get("/admin/experiments/experiment/")
    assert listing.status_code == 200 and b"kite news" in listing.content
    assert b"0 of 4 runs done" in listing.content
    page = staff.get(f"/admin/experiments/experiment/{made['id']}/change/")
    assert page.status_code == 200
    assert page.content.count(b"news left out") >= 2  # the runs of the second variant


@pytest.mark.django_db
def test_a_variants_base_takes_a_name_none_of_the_owners_has(api: APIClient) -> None:
    made = api.post("/api/experiments/", definition(base_made(api)), format="json").json()
    experiment = Experiment.objects.get(pk=made["id"])
    first = variant_bases_make(experiment=experiment)
    second = variant_bases_make(experiment=experiment)  # the first's base keeps its name
    assert first[0] == second[0] == experiment.definition["start"]["base"]
    assert first[1] != second[1]
    names = {api.get(f"/api/bases/{pk}/").json()["name"] for pk in (first[1], second[1])}
    assert len(names) == 2 and all("kite news: news left out" in n for n in names)
