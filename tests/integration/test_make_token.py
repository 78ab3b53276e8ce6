"""`manage.py make_token`: an API token made from the shell, the command the docs name for
the `sv_...` keys they show; its key printed once, working, listed; bad input makes
nothing."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from integration.models import ApiToken

ROOT = Path(__file__).resolve().parents[2]
# Where a reader learns to make a token or is shown one.
DOCS = ("README.md", "docs/api.md", "docs/integration.md", "clients/python/README.md")
# A command line as a doc writes it, e.g. make_token alice --name "lab notebook".
COMMAND = re.compile(r"""make_token (\w+) --name ("[^"]+"|[\w-]+)""")
KEY = re.compile(r"sv_[A-Za-z0-9_-]{8,}")


def _make(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("make_token", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _with_key(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def fern(db: None) -> User:
    return User.objects.create_user(username="fern", password="fern-password-1")


def test_the_key_is_printed_alone_once_and_works(fern: User) -> None:
    out, err = _make("fern", "--name", "pond level sensor")
    key = out.strip()
    assert out == f"{key}\n" and key.startswith("sv_")  # a script can take it: KEY=$(...)
    assert "pond level sensor" in err and key not in err
    listed = _with_key(key).get("/api/tokens/")
    assert listed.status_code == 200
    assert [t["name"] for t in listed.json()["results"]] == ["pond level sensor"]
    assert key not in str(list(ApiToken.objects.values_list()))  # only its hash is kept


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("nobody-here", "--name", "reed"), "nobody-here"),
        (("fern", "--name", "   "), "name"),
        (("fern", "--name", "x" * 101), "name"),
        (("fern", "--name", "pond level sensor"), "name"),  # hers already, and live
    ],
)
def test_bad_input_is_an_error_naming_it_and_makes_nothing(
    fern: User, args: tuple[str, ...], named: str
) -> None:
    _make("fern", "--name", "pond level sensor")
    with pytest.raises(CommandError, match=named):
        _make(*args)
    assert ApiToken.objects.count() == 1


def test_an_inactive_user_gets_no_token(fern: User) -> None:
    User.objects.filter(pk=fern.pk).update(is_active=False)
    with pytest.raises(CommandError, match="not active"):
        _make("fern", "--name", "reed")
    assert not ApiToken.objects.exists()


def test_the_docs_name_a_command_that_makes_the_tokens_they_show(db: None) -> None:
    shown, made = [], []
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        assert "make_token" in text, f"{doc} names no command that makes a token"
        shown += KEY.findall(text)
        for username, name in COMMAND.findall(text):
            # Each command line as written makes a working key.
            User.objects.get_or_create(username=username)
            key = _make(username, "--name", shlex.split(name)[0])[0].strip()
            assert _with_key(key).get("/api/simulations/").status_code == 200, (doc, name)
            made.append(key)
    assert len(made) >= 3 and shown, "the docs' command lines or example keys were not found"
    # ... of the kind the docs show.
    assert {len(key) for key in shown} == {len(key) for key in made}
