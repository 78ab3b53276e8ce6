"""Without a browser: `/` answers, and with DEBUG off the app itself serves the static files
collectstatic gathered (WhiteNoise), compressed, and nothing else."""

from __future__ import annotations

import gzip
from pathlib import Path

from django.conf import settings
from django.test import Client

from web.docs import SAME_ORIGIN_ONLY


def _body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_landing_answers(db: None) -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert b"Smallville" in response.content
    assert b'href="/api/docs/"' in response.content


def test_static_files_served_with_debug_off(collected_static: Path, db: None) -> None:
    assert not settings.DEBUG
    client = Client()  # after collectstatic: WhiteNoise reads STATIC_ROOT when it starts
    for path, kind in [
        ("/static/admin/css/base.css", "text/css"),
        ("/static/web/site.css", "text/css"),
        ("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js", "javascript"),
        ("/static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js", "javascript"),
    ]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert kind in response["Content-Type"], path
        assert _body(response) == (collected_static / path.removeprefix("/static/")).read_bytes()

    # collectstatic compressed them; a browser that takes gzip gets the smaller file.
    zipped = client.get("/static/admin/css/base.css", HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(_body(zipped)).startswith(b"/*")

    assert client.get("/static/admin/css/no-such-file.css").status_code == 404


def test_api_docs_pages_forbid_other_origins(db: None) -> None:
    client = Client()
    for path in ("/api/docs/", "/api/redoc/"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["Content-Security-Policy"] == SAME_ORIGIN_ONLY
        assert b"googleapis" not in response.content
        assert b"cdn.jsdelivr" not in response.content
