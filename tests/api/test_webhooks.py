"""Webhooks over REST (/api/webhooks/): the secret shown once, owner-only, bad input a 400
naming the field with nothing written, and URLs on private ranges refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from integration.webhooks.models import WebhookSubscription
from tests.api import error_of, fields_of
from tests.factories import simulation_of

HOOK = "http://127.0.0.1:9/hooks/smallville"


@pytest.fixture
def private_allowed(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True


def _make(api: APIClient, **fields: Any) -> Any:
    return api.post(
        "/api/webhooks/", {"url": HOOK, "events": ["run.finished"], **fields}, format="json"
    )


@pytest.mark.usefixtures("private_allowed")
def test_the_secret_is_shown_once_and_never_listed(api: APIClient) -> None:
    made = _make(api, name="notebook", events=["run.finished", "evaluation.done"])
    assert made.status_code == 201, made.content
    secret = made.json()["secret"]
    assert secret.startswith("whsec_") and len(secret) > 30
    assert made.json()["events"] == ["evaluation.done", "run.finished"]
    assert made.json()["active"] is True
    hook = made.json()["id"]
    listed = api.get("/api/webhooks/")
    assert [w["id"] for w in listed.json()["results"]] == [hook]
    assert secret not in listed.content.decode()
    one = api.get(f"/api/webhooks/{hook}/")
    assert one.status_code == 200 and secret not in one.content.decode()
    assert api.get(f"/api/webhooks/{hook}/deliveries/").json()["results"] == []


@pytest.mark.usefixtures("private_allowed")
def test_another_user_can_neither_see_nor_change_nor_delete_a_webhook(
    api: APIClient, other_api: APIClient
) -> None:
    hook = _make(api).json()["id"]
    assert other_api.get("/api/webhooks/").json()["results"] == []
    assert other_api.get(f"/api/webhooks/{hook}/").status_code == 404
    assert other_api.get(f"/api/webhooks/{hook}/deliveries/").status_code == 404
    changed = other_api.patch(
        f"/api/webhooks/{hook}/", {"url": "http://127.0.0.1:10/x"}, format="json"
    )
    assert changed.status_code == 404
    assert other_api.delete(f"/api/webhooks/{hook}/").status_code == 404
    assert WebhookSubscription.objects.get(pk=hook).url == HOOK
    assert APIClient().get("/api/webhooks/").status_code == 401


@pytest.mark.usefixtures("private_allowed")
def test_the_owner_changes_re_enables_and_deletes_a_webhook(api: APIClient) -> None:
    hook = _make(api).json()["id"]
    WebhookSubscription.objects.filter(pk=hook).update(
        active=False, disabled_reason="3 deliveries in a row failed", failures=3
    )
    changed = api.patch(f"/api/webhooks/{hook}/", {"active": True, "name": "again"}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["active"] is True and changed.json()["name"] == "again"
    assert changed.json()["disabled_reason"] == "" and changed.json()["failures"] == 0
    assert api.delete(f"/api/webhooks/{hook}/").status_code == 204
    assert api.get(f"/api/webhooks/{hook}/").status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/hook",
        "http://192.168.0.7:8080/hook",
        "http://172.16.5.5/hook",
        "http://127.0.0.1:8000/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost/hook",
        "http://0.0.0.0/hook",
        "http://[::ffff:10.0.0.1]/hook",
    ],
)
def test_a_private_or_own_url_is_refused_unless_the_operator_allows_it(
    api: APIClient, url: str
) -> None:
    refused = _make(api, url=url)
    assert refused.status_code == 400, refused.content
    assert "url" in fields_of(refused)
    assert not WebhookSubscription.objects.exists()


def test_a_url_naming_this_service_is_refused(api: APIClient, settings: Any) -> None:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "smallville.example.org"]
    refused = _make(api, url="https://smallville.example.org/hooks")
    assert refused.status_code == 400 and "own host" in error_of(refused)["detail"]


@pytest.mark.usefixtures("private_allowed")
@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"url": "ftp://127.0.0.1/x"}, "url"),
        ({"url": "http://user:pw@127.0.0.1/x"}, "url"),
        ({"events": []}, "events"),
        ({"events": ["run.exploded"]}, "events[0]"),
        ({"events": ["simulation.events"]}, "log_kinds"),
        ({"events": ["simulation.events"], "log_kinds": ["Not A Kind"]}, "log_kinds"),
        ({"log_kinds": ["conversation.held"]}, "log_kinds"),
        ({"events": ["simulation.events"], "log_kinds": ["conversation.held"]}, "simulation"),
        ({"simulation": 999999}, "simulation"),
        ({"simulation": "1"}, "simulation"),
        ({"secret": "mine"}, "secret"),
        ({"active": False}, "active"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(
    api: APIClient, fields: dict[str, Any], field: str
) -> None:
    refused = _make(api, **fields)
    assert refused.status_code == 400, refused.content
    assert field in fields_of(refused), refused.json()
    assert not WebhookSubscription.objects.exists()


@pytest.mark.usefixtures("private_allowed")
def test_a_webhook_of_one_simulation_must_name_one_of_yours(
    api: APIClient, user: User, other_user: User
) -> None:
    theirs = simulation_of(other_user)
    refused = _make(api, simulation=theirs.pk)
    assert refused.status_code == 400 and "simulation" in fields_of(refused)
    mine = simulation_of(user)
    made = _make(api, simulation=mine.pk)
    assert made.status_code == 201 and made.json()["simulation"] == mine.pk
