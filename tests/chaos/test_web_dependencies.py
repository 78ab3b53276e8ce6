"""The production server (gunicorn as `make serve` runs it) while its Postgres is down and
after it is back: a request answers 503 at once, not after the pool's 10 s timeout, and
the first request after the database's return is served."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from runtime.workerproc import ROOT

from ..production_server import ProductionServer, production_server
from .harness import RECOVERIES
from .processes import PrivatePostgres, user_with_token


@pytest.mark.chaos
def test_with_postgres_down_the_web_answers_503_at_once_and_serves_on_its_return() -> None:
    database = PrivatePostgres()
    try:
        url = database.start()
        env = {**os.environ, "DATABASE_URL": url}
        migrate = [sys.executable, "manage.py", "migrate", "--verbosity", "0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=300)
        token = user_with_token(url, "chaos-web")
        with production_server({"DATABASE_URL": url}) as web:
            assert _get(web, token)[0] == 200
            database.crash()
            one_by_one = [_get(web, token) for _ in range(5)]
            with ThreadPoolExecutor(12) as clients:  # more than the server's 8 threads
                at_once = list(clients.map(lambda _: _get(web, token), range(12)))
            database.start()
            back = _get(web, token)
    finally:
        database.remove()
    down = one_by_one + at_once
    assert {status for status, _ in down} == {503}
    slowest = max(seconds for _, seconds in down)
    RECOVERIES.append(("web: slowest 503 while Postgres was down", slowest))
    RECOVERIES.append(("web: first request after Postgres's return", back[1]))
    assert slowest < 1
    assert back[0] == 200


def _get(web: ProductionServer, token: str) -> tuple[int, float]:
    started = time.monotonic()
    status = web.request("GET", "/api/simulations/", token=token, timeout=30)[0]
    return status, time.monotonic() - started
