"""Authorisation on every operation of the OpenAPI schema, so a new endpoint is covered the
day it is added: anonymous requests get 401; another user's simulation, and everything
under it, is 404 (as if it did not exist) and absent from lists; the owner gets through; a
guest of a shared simulation reads what the viewer shows, steps in, and nothing else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api import create, error_of
from world.models import Event, Location, Town

ISABELLA = "Isabella Rodriguez"
# A valid body for each operation that takes one, by the end of its path: the 404 for
# another user's simulation must not depend on a body error coming first.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/api/simulations/"): {"base": "base_the_ville_isabella_maria_klaus"},
    ("post", "/fork/"): {},
    ("post", "/run/"): {"steps": 1},
    ("post", "/pause/"): {},
    ("post", "/resume/"): {},
    ("post", "/residents/"): {"name": "Ada Lovelace", "address": "the Ville:Hobbs Cafe:cafe"},
    ("post", "/retrieve/"): {"query": "party"},
    ("post", "/why/"): {"statement": "the party"},
    ("post", "/interview/"): {"persona": "a news reporter", "question": "How are you?"},
    ("post", "/whisper/"): {"statement": "I should paint"},
    ("post", "/control/"): {"user_controlled": True},
    ("post", "/go/"): {"address": "the Ville:Hobbs Cafe:cafe"},
    ("post", "/say/"): {"to": "Klaus Mueller", "text": "Hi"},
    ("put", "/objects/"): {"address": "the Ville:Hobbs Cafe:cafe:piano", "state": "playing"},
    ("post", "/evaluations/"): {"kinds": ["diffusion"]},
    ("post", "/api/bases/"): {},
    ("post", "/api/towns/"): {
        "name": "made_up_lane",
        "world": "Made-up Lane",
        "rows": ["####", "#ab#", "####"],
        "legend": {
            "#": {"wall": True},
            "a": {"sector": "Lane house", "arena": "hall"},
            "b": {"sector": "Lane house", "arena": "hall", "object": "stool"},
        },
    },
    ("delete", "/api/towns/{id}/"): {},
    ("delete", "/api/simulations/{id}/"): {},
    ("put", "/api/bases/{id}/"): {},
    ("patch", "/api/bases/{id}/"): {},
    ("post", "/copy/"): {},
    ("post", "/api/profiles/"): {},
    ("put", "/api/profiles/{id}/"): {},
    ("patch", "/api/profiles/{id}/"): {},
    ("post", "/check/"): {},
    ("put", "/models/"): {},
    ("post", "/api/tokens/"): {"name": "a made-up tool"},
    ("delete", "/api/bases/{id}/"): {},
    ("delete", "/api/profiles/{id}/"): {},
    ("delete", "/api/tokens/{id}/"): {},
    ("delete", "/residents/{resident}/"): {},
    ("post", "/scenarios/"): {
        "kind": "whisper",
        "at": "2023-02-13T12:00:00Z",
        "resident": ISABELLA,
        "statement": "I should paint the fence",
    },
    ("delete", "/scenarios/{number}/"): {},
    ("post", "/api/webhooks/"): {"url": "http://127.0.0.1:9/hook", "events": ["run.finished"]},
    ("patch", "/api/webhooks/{id}/"): {},
    ("delete", "/api/webhooks/{id}/"): {},
    ("post", "/api/experiments/"): {
        "name": "a made-up question",
        "start": {"base": "base_the_ville_isabella_maria_klaus"},
        "span": {"steps": 5},
        "seeds": 1,
        "variants": [{"name": "as it is"}],
    },
    ("delete", "/api/experiments/{id}/"): {},
    ("post", "/start/"): {},
    ("post", "/cancel/"): {},
    ("put", "/share/"): {"share": "anyone"},
    ("post", "/players/"): {"name": "Ada Lovelace", "address": "the Ville:Hobbs Cafe:cafe"},
    ("delete", "/players/{resident}/"): {},
}
# Rooms of the requester's own whose {id} is not a simulation's: the owner's ids per prefix.
OWN_ROOMS = ("/api/bases/", "/api/profiles/", "/api/tokens/", "/api/webhooks/", "/api/experiments/")
PUBLIC = {"/api/schema/", "/api/docs/"}


def _operations(client: APIClient) -> list[tuple[str, str]]:
    schema = client.get("/api/schema/?format=json").json()
    return [
        (method, path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"} and path not in PUBLIC
    ]


def _url(path: str, *, simulation: int, town: int, own: dict[str, int] | None = None) -> str:
    values = {
        "simulation_pk": simulation,
        "town_pk": town,
        "resident": ISABELLA,
        "number": 1,
    }

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "id":  # /api/simulations/{id}/ or /api/towns/{id}/, or one of OWN_ROOMS
            for prefix, pk in (own or {}).items():
                if path.startswith(prefix):
                    return str(pk)
            return str(town if path.startswith("/api/towns/") else simulation)
        return str(values[name])

    url = re.sub(r"\{(\w+)\}", fill, path)
    if url.endswith("/path/"):
        url += "?from_x=72&from_y=14&to_x=73&to_y=14"
    if url.endswith("/estimate/"):
        url += "?hours=1"
    if url.endswith("/facts/holders/"):
        url += "?fact=the+library+closes+early+on+Friday"
    return url


def _body(method: str, path: str) -> dict[str, Any] | None:
    if method == "get":
        return None
    for (verb, end), body in BODIES.items():
        if verb == method and path.endswith(end):
            return body
    raise AssertionError(f"add a valid body for {method.upper()} {path} to BODIES")


@pytest.mark.django_db
def test_every_operation_refuses_anonymous_requests(api: APIClient, ville: Town) -> None:
    operations = _operations(api)
    assert len(operations) >= 30
    anonymous = APIClient()
    for method, path in operations:
        url = _url(path, simulation=1, town=ville.pk)
        response = getattr(anonymous, method)(url, _body(method, path), format="json")
        assert response.status_code == 401, (method, url, response.content)
        assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.django_db
def test_every_operation_hides_another_users_simulation(
    api: APIClient, other_api: APIClient, ville: Town
) -> None:
    theirs = create(other_api)
    mine = create(api)
    events = Event.objects.filter(simulation_id=theirs["id"]).count()
    checked = 0
    for method, path in _operations(api):
        if "{simulation_pk}" not in path and not path.startswith("/api/simulations/{id}"):
            continue
        url = _url(path, simulation=theirs["id"], town=ville.pk)
        response = getattr(api, method)(url, _body(method, path), format="json")
        assert response.status_code == 404, (method, url, response.content)
        assert error_of(response)["code"] == "not_found"
        checked += 1
    assert checked >= 25
    # Nothing happened to it, and my lists do not show it.
    assert Event.objects.filter(simulation_id=theirs["id"]).count() == events
    assert [s["id"] for s in api.get("/api/simulations/").json()["results"]] == [mine["id"]]
    assert other_api.get(f"/api/simulations/{theirs['id']}/").status_code == 200


@pytest.mark.django_db
def test_the_owner_gets_through(api: APIClient, ville: Town, settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True  # the hook below is on this machine
    mine = create(api)
    hook = {"url": "http://127.0.0.1:9/hook", "events": ["run.finished"]}
    profile = {"name": "made-up", "backend": "offline", "model": "rules"}
    own = {
        "/api/bases/": api.get("/api/bases/").json()["results"][0]["id"],  # a shipped one
        "/api/towns/{town_pk}/locations/": Location.objects.filter(town=ville).earliest("pk").pk,
        "/api/profiles/": api.post("/api/profiles/", profile, format="json").json()["id"],
        "/api/tokens/": api.post("/api/tokens/", {"name": "made-up"}, format="json").json()["id"],
        "/api/webhooks/": api.post("/api/webhooks/", hook, format="json").json()["id"],
        "/api/experiments/": api.post(
            "/api/experiments/", BODIES[("post", "/api/experiments/")], format="json"
        ).json()["id"],
    }
    for method, path in _operations(api):
        if method != "get":
            continue
        url = _url(path, simulation=mine["id"], town=ville.pk, own=own)
        response = api.get(url)
        # Memory 1 exists (a seed memory), conversation 1 does not (nobody talked yet).
        expected = (200, 404) if "{number}" in path else (200,)
        if path.startswith("/api/experiments/{id}/") and path != "/api/experiments/{id}/":
            expected = (409,)  # its results and report come when it is done: a pending one
        assert response.status_code in expected, (url, response.content)


# What a guest of a shared simulation may do, by method and the end of the path: watch (the
# viewer's reads) and step in. Every other operation on it is the owner's.
GUEST_MAY = {
    ("get", "/api/simulations/{id}/"),
    ("get", "/api/simulations/{id}/progress/"),
    ("get", "/events/"),
    ("get", "/stream/"),
    ("get", "/replay/"),
    ("get", "/residents/"),
    ("get", "/residents/{resident}/"),
    ("get", "/conversations/"),
    ("get", "/conversations/{number}/"),
    ("get", "/objects/"),
    ("get", "/players/"),
    ("post", "/players/"),
}


def _guest_may(method: str, path: str) -> bool:
    return any(method == verb and path.endswith(end) for verb, end in GUEST_MAY)


@pytest.mark.django_db
def test_a_guest_watches_and_steps_in_and_may_do_nothing_else(
    api: APIClient, other_api: APIClient, ville: Town
) -> None:
    theirs = create(other_api)
    shared = other_api.put(
        f"/api/simulations/{theirs['id']}/share/", {"share": "anyone"}, format="json"
    )
    assert shared.status_code == 200, shared.content
    events = Event.objects.filter(simulation_id=theirs["id"]).count()
    allowed, refused = 0, 0
    for method, path in _operations(api):
        if "{simulation_pk}" not in path and not path.startswith("/api/simulations/{id}"):
            continue
        url = _url(path, simulation=theirs["id"], town=ville.pk)
        if path.endswith("/stream/"):
            continue  # an endless response: tests/api/test_stream_views.py
        if _guest_may(method, path):
            if method == "post":  # stepping in: last, as it changes the town
                continue
            response = api.get(url)
            expected = (200, 404) if "{number}" in path else (200,)
            assert response.status_code in expected, (url, response.content)
            allowed += 1
            continue
        response = getattr(api, method)(url, _body(method, path), format="json")
        # Acting for a resident the guest does not play is a 403; the rest is not found.
        assert response.status_code in (403, 404), (method, url, response.content)
        refused += 1
    assert allowed >= 10 and refused >= 30
    assert Event.objects.filter(simulation_id=theirs["id"]).count() == events
    joined = api.post(
        f"/api/simulations/{theirs['id']}/players/",
        BODIES[("post", "/players/")],
        format="json",
    )
    assert joined.status_code == 201, joined.content
    # The live log is the guest's to read too (its content is endless: not read here).
    stream = api.get(f"/api/simulations/{theirs['id']}/stream/", {"after": 0})
    assert stream.status_code == 200, stream
    assert stream["Content-Type"].startswith("text/event-stream")
    stream.close()
