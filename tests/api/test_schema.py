"""The OpenAPI 3 schema: served (publicly, by choice), complete, and free of warnings.

/api/schema/ and /api/docs/ are public: the schema describes the API, not anyone's data,
and client generators and the Swagger UI should not need a token to read it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

PATHS = {
    "/api/towns/",
    "/api/towns/{id}/",
    "/api/towns/{id}/path/",
    "/api/towns/{town_pk}/locations/",
    "/api/towns/{town_pk}/locations/{id}/",
    "/api/simulations/",
    "/api/simulations/{id}/",
    "/api/simulations/{id}/fork/",
    "/api/simulations/{simulation_pk}/residents/",
    "/api/simulations/{simulation_pk}/residents/{resident}/",
    "/api/simulations/{simulation_pk}/events/",
}


@pytest.mark.django_db
@pytest.mark.parametrize("authenticated", [True, False])
def test_schema_is_openapi3_json(api: APIClient, authenticated: bool) -> None:
    client = api if authenticated else APIClient()
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) >= PATHS
    create = schema["paths"]["/api/simulations/"]["post"]
    # 413: body over the limit; 429: throttled; 503: the database or cache is down
    assert set(create["responses"]) == {"201", "400", "401", "413", "429", "503"}
    # Every error response is a Problem (RFC 9457), as application/problem+json.
    for status, response in create["responses"].items():
        if int(status) >= 400:
            assert response["content"] == {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            }, status
    problem = schema["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code", "errors"} <= set(problem["required"])
    field_error = schema["components"]["schemas"]["FieldError"]["properties"]["field"]
    assert field_error["nullable"] is True
    assert {"tokenAuth": []} in create["security"]


@pytest.mark.django_db
def test_swagger_ui_is_served() -> None:
    assert APIClient().get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_spectacular_has_no_warnings(tmp_path: Path) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    assert target.read_text().startswith("openapi: 3")
