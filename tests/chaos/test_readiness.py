"""/readyz on the production server while its Postgres, then its Redis (cache and broker),
go down and come back: 503 naming the dependency within a second of its fall, 200 within a
second of its return (observability/health.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from runtime.workerproc import ROOT

from ..production_server import ProductionServer, production_server
from .harness import RECOVERIES
from .processes import BrokerWorker, PrivatePostgres, PrivateRedis

BEAT = {"SMALLVILLE_LEASE_SECONDS": "1.5"}  # the worker beats every half second


def readiness(web: ProductionServer) -> tuple[int, list[str]]:
    status, _, body = web.request("GET", "/readyz", timeout=10)
    return status, json.loads(body)["down"]


def seconds_until(what: Callable[[], bool], timeout: float = 30) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if what():
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout:.0f} s")


@pytest.mark.chaos
def test_readiness_names_a_dependency_down_and_recovers_with_it() -> None:
    database, redis = PrivatePostgres(), PrivateRedis()
    redis.start()
    try:
        url = database.start()
        env = {**os.environ, "DATABASE_URL": url, **BEAT}
        migrate = [sys.executable, "manage.py", "migrate", "--verbosity", "0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=300)
        worker = BrokerWorker(redis, {"DATABASE_URL": url, **BEAT})
        served = {"DATABASE_URL": url, **redis.env(), **BEAT}
        served["SMALLVILLE_CACHE_PREFIX"] = worker.env["SMALLVILLE_CACHE_PREFIX"]
        with production_server(served) as web:
            assert readiness(web) == (503, ["workers"])  # no worker yet
            worker.start()
            try:
                seconds_until(lambda: readiness(web) == (200, []))
                database.crash()
                fell = seconds_until(lambda: "database" in readiness(web)[1])
                assert readiness(web)[0] == 503
                database.start()
                rose = seconds_until(lambda: readiness(web)[0] == 200)
                redis.kill()
                redis_fell = seconds_until(lambda: {"cache", "broker"} <= set(readiness(web)[1]))
                redis.start()  # empty: the worker's next beat says it lives
                redis_rose = seconds_until(lambda: readiness(web)[0] == 200)
            finally:
                worker.stop()
    finally:
        database.remove()
        redis.stop()
    RECOVERIES.append(("readyz: 503 after Postgres went down", fell))
    RECOVERIES.append(("readyz: 200 after Postgres came back", rose))
    RECOVERIES.append(("readyz: 503 after Redis went down", redis_fell))
    RECOVERIES.append(("readyz: 200 after Redis came back", redis_rose))
    assert max(fell, rose, redis_fell, redis_rose) < 1, (fell, rose, redis_fell, redis_rose)
