"""What each resident is doing, where, and with whom, in the resident list and detail."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from . import COUNTER, ISABELLA, KLAUS, MARIA, stage


@pytest.mark.django_db
def test_list_and_detail_show_the_current_action(api: APIClient) -> None:
    simulation = stage(api)
    url = f"/api/simulations/{simulation.pk}/residents/"
    rows = {row["name"]: row for row in api.get(url).json()["results"]}
    isabella = rows.pop(ISABELLA)
    assert isabella["action"] == "serving customers" and isabella["emoji"] == "🍽️"
    assert isabella["place"] == COUNTER and isabella["location"] != COUNTER
    assert isabella["chatting_with"] == "" and isabella["busy_until_step"] == 45
    assert "summary" not in isabella and "path_length" not in isabella
    assert set(rows) == {KLAUS, MARIA}
    for row in rows.values():  # no action yet: the place is where they stand
        assert row["action"] == "" and row["emoji"] == ""
        assert row["place"] == row["location"] and row["place"]
    detail = api.get(f"{url}{quote(ISABELLA)}/").json()
    assert detail["path_length"] == 2 and detail["summary"] == ""
    assert {k: detail[k] for k in isabella} == isabella
