"""Bases in the admin: listed; a user's base is edited with the base file's checks; a
shipped one is read-only."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from world.models import Base

from .test_bases_api import five


@pytest.mark.django_db
def test_admin_lists_checks_and_protects(staff: Client) -> None:
    shipped = Base.objects.get(owner__isnull=True, name="base_brindle_green_n5")
    listed = staff.get("/admin/world/base/")
    assert listed.status_code == 200 and b"base_brindle_green_n5" in listed.content
    page = staff.get(f"/admin/world/base/{shipped.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content  # read-only

    data = five()
    form = {
        "name": "menders",
        "description": "",
        "town": data["town"],
        "start_time_0": "2024-05-06",
        "start_time_1": "00:00:00",
        "sec_per_step": "10",
        "residents": json.dumps(data["residents"]),
    }
    bad = [dict(r) for r in data["residents"]]
    bad[1]["living_area"] = "Brindle Green:Nowhere:attic"
    refused = staff.post("/admin/world/base/add/", {**form, "residents": json.dumps(bad)})
    assert refused.status_code == 200 and b"residents[1].living_area" in refused.content
    assert not Base.objects.filter(name="menders").exists()
    added = staff.post("/admin/world/base/add/", form)
    assert added.status_code == 302, added.content[:2000]
    mine = Base.objects.get(name="menders")
    assert len(mine.residents) == 5 and mine.owner is not None and mine.owner.username == "staff"
