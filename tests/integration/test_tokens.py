"""API tokens users manage themselves: made with a name and shown once,
listed without their keys, revoked for good; only the owner sees or revokes one."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from integration.models import ApiToken
from tests.api import fields_of


@pytest.fixture
def wren(db: None) -> User:
    return User.objects.create_user(username="wren", password="wren-password-1")


@pytest.fixture
def otto(db: None) -> User:
    return User.objects.create_user(username="otto", password="otto-password-1")


def _as(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _with_key(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_is_shown_once_works_and_stops_working_when_revoked(wren: User) -> None:
    made = _as(wren).post("/api/tokens/", {"name": "lighthouse notebook"}, format="json")
    assert made.status_code == 201, made.content
    key = made.json()["key"]
    assert key.startswith("sv_") and made.json()["prefix"] == key[:10]

    assert _with_key(key).get("/api/simulations/").status_code == 200
    listed = _with_key(key).get("/api/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["lighthouse notebook"]
    assert "key" not in listed[0] and key not in str(listed)
    assert listed[0]["last_used_at"] is not None
    # Only a hash is kept: no column holds the key.
    row = ApiToken.objects.get()
    assert key not in str(list(ApiToken.objects.values_list()))
    assert row.key_hash != key

    assert _as(wren).delete(f"/api/tokens/{row.pk}/").status_code == 204
    assert _with_key(key).get("/api/simulations/").status_code == 401
    again = _as(wren).get(f"/api/tokens/{row.pk}/").json()
    assert again["revoked"] is True and again["revoked_at"] is not None


def test_names_are_checked_and_a_revoked_token_frees_its_name(wren: User) -> None:
    client = _as(wren)
    assert client.post("/api/tokens/", {"name": "harbour bot"}, format="json").status_code == 201
    duplicate = client.post("/api/tokens/", {"name": "harbour bot"}, format="json")
    assert duplicate.status_code == 400 and "name" in fields_of(duplicate)
    for bad in ({}, {"name": ""}, {"name": "   "}, {"name": "x" * 101}, {"name": "tab\there"}):
        response = client.post("/api/tokens/", bad, format="json")
        assert response.status_code == 400 and "name" in fields_of(response), bad
    assert ApiToken.objects.count() == 1  # the refusals wrote nothing
    first = ApiToken.objects.get()
    client.delete(f"/api/tokens/{first.pk}/")
    assert client.post("/api/tokens/", {"name": "harbour bot"}, format="json").status_code == 201


def test_another_users_tokens_are_neither_seen_nor_revoked(wren: User, otto: User) -> None:
    made = _as(wren).post("/api/tokens/", {"name": "tide tables"}, format="json").json()
    theirs = _as(otto)
    assert theirs.get("/api/tokens/").json()["results"] == []
    assert theirs.get(f"/api/tokens/{made['id']}/").status_code == 404
    assert theirs.delete(f"/api/tokens/{made['id']}/").status_code == 404
    assert _with_key(made["key"]).get("/api/tokens/").status_code == 200  # still live
    assert APIClient().get("/api/tokens/").status_code == 401


def test_a_wrong_or_inactive_users_key_is_refused_and_the_legacy_token_still_works(
    wren: User,
) -> None:
    made = _as(wren).post("/api/tokens/", {"name": "kiln sensor"}, format="json").json()
    assert _with_key(made["key"] + "x").get("/api/tokens/").status_code == 401
    assert _with_key("sv_" + "A" * 40).get("/api/tokens/").status_code == 401
    legacy = Token.objects.create(user=wren)
    assert _with_key(legacy.key).get("/api/tokens/").status_code == 200
    wren.is_active = False
    wren.save()
    assert _with_key(made["key"]).get("/api/tokens/").status_code == 401
