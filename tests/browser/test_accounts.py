"""Logging in and out with the Django session (what the viewer's login_required relies on),
without a browser."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client


@pytest.fixture
def alice(db: None) -> User:
    return User.objects.create_user(username="alice", password="alice-password-1")


def _login(client: Client, next_url: str) -> str:
    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": "alice-password-1", "next": next_url},
    )
    assert response.status_code == 302
    return response["Location"]


def test_login_required_sends_to_our_login_page_and_back(alice: User) -> None:
    client = Client()
    page = client.get("/accounts/login/?next=/simulations/7/")
    assert page.status_code == 200
    assert b'name="next" value="/simulations/7/"' in page.content
    assert _login(client, "/simulations/7/") == "/simulations/7/"
    assert client.get("/").context["user"] == alice


def test_login_never_redirects_off_site(alice: User) -> None:
    assert _login(Client(), "https://evil.example/") == "/"


def test_wrong_password_logs_nobody_in(alice: User) -> None:
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    assert b"did not match" in response.content
    assert not client.get("/").context["user"].is_authenticated


def test_logout_is_a_post(alice: User) -> None:
    client = Client()
    client.force_login(alice)
    assert client.get("/accounts/logout/").status_code == 405  # a link cannot log you out
    assert client.get("/").context["user"] == alice
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert not client.get("/").context["user"].is_authenticated
