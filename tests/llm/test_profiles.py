"""Model profiles: owner-only REST, staff sharing, the `check` call on a real server, and a
key that is never echoed (API, admin, ledger, log)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from agents.services import simulation_create_from_base
from agents.tasks.importance import IMPORTANCE
from llm.errors import ProfileUnusable
from llm.models import ModelCall, ModelProfile
from llm.policy_server import PolicyServer
from llm.port import llm_run
from world.models import Simulation

TOWN = "base_the_ville_isabella_maria_klaus"
SECRET = "sk-test-Quillfeather-77f3a9c2"
KEY_VAR = "SMALLVILLE_TEST_PROFILE_KEY"
INPUTS = {
    "agent_name": "Odile Brackenridge",
    "agent_identity": "Name: Odile Brackenridge\nAge: 52",
    "memory": "Odile Brackenridge re-strung the harp in the chapel loft",
}


def _body(base_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": "policy",
        "backend": "openai",
        "base_url": base_url,
        "model": "smallville-policy",
        "send_task": True,
        "input_price": "2.5",
        "output_price": "10",
        **extra,
    }


def _simulation(user: User) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=TOWN, seed=5, start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC)
    )


@pytest.mark.django_db(transaction=True)
def test_a_profile_is_its_owners_and_checks_a_real_server(
    api: APIClient, other_api: APIClient
) -> None:
    with PolicyServer() as server:
        made = api.post("/api/profiles/", _body(server.base_url), format="json")
        assert made.status_code == 201, made.json()
        pk = made.json()["id"]
        assert other_api.get(f"/api/profiles/{pk}/").status_code == 404
        assert other_api.post(f"/api/profiles/{pk}/check/").status_code == 404
        checked = api.post(f"/api/profiles/{pk}/check/").json()
    assert checked["ok"] and checked["reachable"], checked
    assert checked["structured_output"] is True
    assert checked["dialect"] == "openai"  # the policy server does not name its kind
    assert checked["model"] == "smallville-policy"
    assert checked["latency_ms"] >= 0
    assert server.answered == 1


@pytest.mark.django_db(transaction=True)
def test_only_staff_share_a_profile_and_a_shared_one_is_everyones(
    api: APIClient, other_api: APIClient, other_user: User
) -> None:
    refused = api.post("/api/profiles/", _body("http://127.0.0.1:9/v1", shared=True), format="json")
    assert refused.status_code == 403
    other_user.is_staff = True
    other_user.save()
    shared = other_api.post(
        "/api/profiles/", _body("http://127.0.0.1:9/v1", shared=True), format="json"
    )
    assert shared.status_code == 201
    pk = shared.json()["id"]
    assert [p["id"] for p in api.get("/api/profiles/").json()["results"]] == [pk]
    changed = api.patch(f"/api/profiles/{pk}/", {"model": "other"}, format="json")
    assert changed.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_an_unreachable_or_keyless_profile_fails_check_with_a_clear_message(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VAR, raising=False)
    down = api.post(
        "/api/profiles/", _body("http://127.0.0.1:9/v1", name="down"), format="json"
    ).json()
    keyless = api.post(
        "/api/profiles/",
        _body("http://127.0.0.1:9/v1", name="keyless", api_key_env=KEY_VAR),
        format="json",
    ).json()
    checked = api.post(f"/api/profiles/{down['id']}/check/").json()
    assert not checked["ok"] and not checked["reachable"]
    assert checked["message"].startswith("unreachable: http://127.0.0.1:9/v1"), checked
    checked = api.post(f"/api/profiles/{keyless['id']}/check/").json()
    assert not checked["ok"]
    assert KEY_VAR in checked["message"] and "not set" in checked["message"], checked


@pytest.mark.django_db(transaction=True)
def test_a_call_on_a_keyless_profile_fails_at_once_and_counts_nothing(
    user: User, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VAR, raising=False)
    simulation = _simulation(user)
    keyless = api.post(
        "/api/profiles/", _body("http://127.0.0.1:9/v1", api_key_env=KEY_VAR), format="json"
    ).json()
    routed = api.put(
        f"/api/simulations/{simulation.pk}/models/",
        {"routes": {"residents": keyless["id"]}},
        format="json",
    )
    assert routed.status_code == 200, routed.json()
    before = ModelCall.objects.filter(simulation=simulation).count()
    agent = simulation.agents.order_by("name").first()
    with pytest.raises(ProfileUnusable, match=KEY_VAR):
        llm_run(task=IMPORTANCE, inputs=INPUTS, agent=agent)
    assert ModelCall.objects.filter(simulation=simulation).count() == before


@pytest.mark.django_db(transaction=True)
def test_the_key_never_appears_in_responses_admin_ledger_or_logs(
    user: User,
    api: APIClient,
    staff: Client,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv(KEY_VAR, SECRET)
    caplog.set_level(logging.DEBUG)
    simulation = _simulation(user)
    seen: list[str] = []
    with PolicyServer() as server:
        made = api.post(
            "/api/profiles/", _body(server.base_url, api_key_env=KEY_VAR), format="json"
        )
        seen.append(made.content.decode())
        pk = made.json()["id"]
        seen.append(api.post(f"/api/profiles/{pk}/check/").content.decode())
        seen.append(api.get("/api/profiles/").content.decode())
        api.put(
            f"/api/simulations/{simulation.pk}/models/",
            {"routes": {"residents": pk}},
            format="json",
        )
        agent = simulation.agents.order_by("name").first()
        llm_run(task=IMPORTANCE, inputs=INPUTS, agent=agent)
    seen.append(api.get(f"/api/simulations/{simulation.pk}/model-calls/").content.decode())
    for url in (
        "/admin/llm/modelprofile/",
        f"/admin/llm/modelprofile/{pk}/change/",
        "/admin/llm/modelcall/",
    ):
        page = staff.get(url)
        assert page.status_code == 200, url
        seen.append(page.content.decode())
    seen.append(caplog.text)
    seen.append(repr(ModelProfile.objects.get(pk=pk).__dict__))
    call = ModelCall.objects.filter(simulation=simulation, profile_id=pk).get()
    seen.append(repr(call.__dict__))
    assert KEY_VAR in seen[0]
    assert not [text for text in seen if SECRET in text]
