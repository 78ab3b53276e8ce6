"""Base files: export and import through manage.py round-trip; the example of
docs/authoring.md is a valid base."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from world.models import Base

DOCS = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"


@pytest.mark.django_db
def test_export_then_import_round_trips(user: User, tmp_path: Path) -> None:
    path = tmp_path / "village.json"
    call_command("export_base", "base_brindle_green_n5", output=path)
    data = json.loads(path.read_text())
    assert data["format"] == "smallville-base/1" and len(data["residents"]) == 5
    data["name"] = "my village"
    path.write_text(json.dumps(data))
    call_command("import_base", str(path), owner=user.username)
    mine = Base.objects.get(owner=user, name="my village")
    shipped = Base.objects.get(owner__isnull=True, name="base_brindle_green_n5")
    assert mine.residents == shipped.residents and mine.town == shipped.town

    data["residents"][0]["living_area"] = "Brindle Green:Nowhere:attic"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"residents\[0\]\.living_area"):
        call_command("import_base", str(path), owner=user.username, replace=True)
    assert Base.objects.get(pk=mine.pk).residents == shipped.residents


@pytest.mark.django_db
def test_the_documented_example_is_a_base(api: APIClient) -> None:
    example = re.search(r"### A complete small file\n\n```json\n(.*?)```", DOCS.read_text(), re.S)
    assert example is not None
    response = api.post("/api/bases/", json.loads(example.group(1)), format="json")
    assert response.status_code == 201, response.content
    assert [r["name"] for r in response.json()["residents"]] == ["Wanda Pike", "Hugo Pike"]
