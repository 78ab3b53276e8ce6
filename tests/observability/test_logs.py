"""SMALLVILLE_LOG_FORMAT=json: the production server's and a worker's log lines are JSON
objects, one per line, saying which request, simulation, step and task they are about."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from runtime import engine
from tests.factories import three_residents
from tests.production_server import production_server, served_database_url
from tests.runtime.workers import celery_worker, wait_for
from world.models import SimulationStatus

JSON_LOGS = {"SMALLVILLE_LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}


def objects(log: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in log.read_text().splitlines() if text.startswith("{")]


@pytest.mark.django_db(transaction=True)
def test_the_web_logs_json_lines_with_the_request_id_it_answers_with() -> None:
    env = {"DATABASE_URL": served_database_url(), **JSON_LOGS, "SMALLVILLE_WEB_LOG_LEVEL": "info"}
    with production_server(env) as server:
        status, headers, _ = server.request("GET", "/api/no-such-thing/")
        assert status == 404
        rid = {k.lower(): v for k, v in headers.items()}["x-request-id"]
        again = server.request("GET", "/api/no-such-thing/")[1]  # a new id each time
        assert {k.lower(): v for k, v in again.items()}["x-request-id"] != rid
        log = server.log
        wait_for(lambda: "Not Found" in log.read_text(), 10, "the 404's line")
    lines = [text for text in log.read_text().splitlines() if text.strip()]
    assert lines and all(text.startswith("{") for text in lines), lines[:5]
    found = objects(log)
    assert {"time", "level", "logger", "message"} <= set(found[0])
    assert any(o["logger"].startswith("gunicorn") for o in found)  # the server's own lines
    [missing] = [o for o in found if o.get("request_id") == rid]
    assert missing["level"] == "WARNING" and "Not Found" in missing["message"]


@pytest.mark.django_db(transaction=True)
def test_a_workers_lines_say_which_task_simulation_and_step(user: User) -> None:
    simulation = three_residents(user, seed=31)
    with celery_worker(**JSON_LOGS) as worker:
        engine.simulation_run(simulation=simulation, steps=3)

        def finished() -> bool:
            simulation.refresh_from_db()
            return simulation.status != SimulationStatus.RUNNING

        wait_for(finished, 120, "the run")
        log = worker.log
    assert simulation.step == 3
    found = objects(log)
    committed = [o for o in found if o["message"].startswith("committed step")]
    assert [o["step"] for o in committed][-3:] == [0, 1, 2]
    assert {o["simulation"] for o in committed} == {simulation.pk}
    assert {o["task"] for o in committed} <= {"agents.tick", "agents.tick_commit"}
    assert any(o["logger"].startswith("celery") for o in found)  # Celery's own lines
