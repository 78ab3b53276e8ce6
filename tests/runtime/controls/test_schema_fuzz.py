"""Schemathesis over the OpenAPI schema, against the WSGI app in-process.

Each operation gets a bounded, derandomised set of cases (explicit examples, boundary
values and a few random ones, both valid and invalid data), sent with a token of a user
who owns a simulation of the three-resident base; the path parameters name that
simulation, a resident of it and the Ville, so requests reach the views rather than stop
at a 404. Checks: all schemathesis offers but one (see CHECKS): no 5xx, every response
(status, headers, body and content type) as the schema says, invalid data and missing or
ignored auth rejected with a 4xx, methods and Allow headers as documented. Generated
strings may hold NUL (`allow-x00`): a 400, never a 500.

Two operations are left out: the live stream, an endless response that this in-process
client would read until it ends (tests/api/test_stream_views.py checks it against the
production server: every event once, resumption, 400s, 404s); and deleting a simulation,
which would delete the one every later case names (tests/api/test_delete.py and the
access tests check it). `run` is included (its first
tick is queued on commit, and the test's transaction never commits, so nothing is
enqueued); throttle rates are raised so 429s do not hide the views.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core import signals
from django.db import close_old_connections
from rest_framework.authtoken.models import Token
from schemathesis import checks
from schemathesis.config import SchemathesisConfig

from agents import services
from agents.services import simulation_create_from_base
from smallville_project.wsgi import application
from world.models import Town

MAX_EXAMPLES = 4
checks.load_all_checks()
# Every check schemathesis offers (`--checks all`) but one: `positive_data_acceptance`
# expects every schema-valid request to succeed, and the API has rules no schema states
# (an address must exist in the town, a fork step be in the log, a cognition be
# registered, exactly one of `steps` and `until`, a cursor be one the API made, text be
# free of NUL and lone surrogates, which the schema cannot exclude); those are 400s by
# design. The stateful checks (`use_after_free`, `ensure_resource_availability`) run on
# each case but find nothing to compare outside schemathesis' stateful phase, and
# `object_level_authorization` needs a second user's auth scenario (tests/runtime/controls/
# test_access.py covers another user's simulations on every operation instead).
INAPPLICABLE = {"positive_data_acceptance"}
CHECKS = [check for check in checks.CHECKS.get_all() if check.__name__ not in INAPPLICABLE]
UNTHROTTLED = {
    scope: "10000/minute" for scope in ("run", "interview", "whisper", "say", "create", "fork")
}


@pytest.fixture
def api_schema(
    request: Any, user: User, ville: Town, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    # schemathesis 4.32 renames the test node through `_nodeid`, which pytest 9 no longer
    # has (it keeps `_id`); give it one, used only for naming.
    request.node._nodeid = request.node.nodeid
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **UNTHROTTLED}
    settings.REST_FRAMEWORK = framework
    simulation = simulation_create_from_base(
        owner=user, base="base_the_ville_isabella_maria_klaus", config={"cognition": "paper"}
    )
    # Simulations the cases create are not seeded with memories (the embeddings and
    # importance ratings of every resident's seed statements were most of this test's
    # time); the one the path parameters name is.
    monkeypatch.setattr(services, "residents_seed_memories", lambda **kwargs: 0)
    token, _ = Token.objects.get_or_create(user=user)
    config = SchemathesisConfig.from_dict(
        {
            # Through the schema's security scheme (not a plain header), so `ignored_auth`
            # can send the request without it and expect a 401.
            "auth": {"openapi": {"tokenAuth": {"api_key": f"Token {token.key}"}}},
            "parameters": {
                "simulation_pk": simulation.pk,
                "town_pk": ville.pk,
                "resident": "Isabella Rodriguez",
            },
            "operations": [
                {"include-path-regex": "^/api/towns/", "parameters": {"id": ville.pk}},
                {"include-path-regex": "^/api/simulations/", "parameters": {"id": simulation.pk}},
            ],
            "generation": {
                "max-examples": MAX_EXAMPLES,
                "deterministic": True,
                "mode": "all",
                "with-security-parameters": False,
                "allow-x00": True,  # NUL in generated strings: a 400, never a 500
                # Unknown query parameters are ignored by design (docs/api.md).
                "allow-extra-parameters": False,
            },
        }
    )
    # As Django's test client does: the request signals would close the test's connection
    # (it is inside the test's transaction).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", application, config=config)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.django_db
@(
    schema.exclude(path_regex=r"/stream/$")
    .exclude(method="DELETE", path_regex=r"^/api/simulations/\{[a-z_]+\}/$")
    .parametrize()
)
def test_the_api_matches_its_schema(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)
