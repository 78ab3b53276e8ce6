"""Importing the settings starts nothing: with DATABASE_URL unset they only describe the
embedded database, which the database backend starts at the first connection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from smallville_project import embedded_db
from smallville_project.postgres.base import DatabaseWrapper

ROOT = Path(__file__).resolve().parent.parent

_SETUP = """
import json, django
django.setup()
from django.conf import settings
from smallville_project.wsgi import application
print(json.dumps({k: v for k, v in settings.DATABASES["default"].items() if k != "TEST"}))
"""


def _postgres_running_in(pgdata: Path) -> list[str]:
    """The command lines of processes that name `pgdata` (a postmaster would: -D)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(pgdata) in cmdline and "postgres" in cmdline:
            found.append(cmdline)
    return found


def test_importing_the_settings_starts_no_database(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "DJANGO_SETTINGS_MODULE": "smallville_project.settings",
        "SMALLVILLE_PGDATA": str(pgdata),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SETUP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    database = json.loads(done.stdout.strip().splitlines()[-1])
    assert database["EMBEDDED"] is True and database["HOST"] == ""
    assert database["NAME"] == embedded_db.DATABASE_NAME
    # No cluster made, no server started, nothing listening on its socket.
    assert not (pgdata / "postmaster.pid").exists()
    assert not pgdata.exists() or list(pgdata.iterdir()) == []
    assert _postgres_running_in(pgdata) == []


def _embedded_entry() -> dict[str, Any]:
    entry = {**embedded_db.embedded_settings(), "NAME": "test_smallville", "OPTIONS": {}}
    return {**entry, "TIME_ZONE": None}


def test_the_first_connection_starts_the_embedded_database_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[str] = []

    def ensure_running() -> str:
        started.append("started")
        return "postgresql://embedded_postgres@/smallville?host=%2Ftmp%2Fsockets"

    monkeypatch.setattr(embedded_db, "_started", None)
    monkeypatch.setattr(embedded_db, "ensure_running", ensure_running)
    entry = _embedded_entry()
    first = DatabaseWrapper(entry).get_connection_params()
    # Every connection made from the same settings (other threads, the test runner's).
    second = DatabaseWrapper(entry).get_connection_params()
    other = DatabaseWrapper(_embedded_entry()).get_connection_params()
    assert started == ["started"]
    assert entry["HOST"] == "/tmp/sockets" and entry["USER"] == "embedded_postgres"
    assert entry["NAME"] == "test_smallville"  # the database named stays
    for params in (first, second, other):
        assert params["host"] == "/tmp/sockets" and params["dbname"] == "test_smallville"


def test_a_host_set_by_hand_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test pointing the connection at a dead socket means it (tests/runtime/controls)."""

    def ensure_running() -> str:
        raise AssertionError("started")

    monkeypatch.setattr(embedded_db, "_started", None)
    monkeypatch.setattr(embedded_db, "ensure_running", ensure_running)
    entry = {**_embedded_entry(), "HOST": "/nonexistent-smallville-socket", "PORT": "5432"}
    assert DatabaseWrapper(entry).get_connection_params()["host"] == entry["HOST"]


def test_dbshell_starts_the_embedded_database_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db.backends.postgresql import client

    shells: list[object] = []
    monkeypatch.setattr(embedded_db, "_started", None)
    monkeypatch.setattr(embedded_db, "ensure_running", lambda: "postgresql://u@/smallville?host=/s")
    monkeypatch.setattr(
        client.DatabaseClient, "runshell", lambda self, _: shells.append(self.connection)
    )
    entry = _embedded_entry()
    DatabaseWrapper(entry).client.runshell([])
    assert len(shells) == 1 and entry["HOST"] == "/s"
