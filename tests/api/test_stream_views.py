"""A simulation's live event stream, from the production server started as `make serve`
starts it (uvicorn workers behind gunicorn, on the test database): every event of a run
once and in seq order, a dropped stream resumed with Last-Event-ID losing and repeating
nothing, filters, and the API's rules (auth, ownership, 400s naming the field)."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api.streams.views import MAX_NAMES
from runtime.engine import simulation_run_inline
from tests.api import create, error_of
from tests.production_server import ProductionServer, production_server, served_database_url
from world.models import Event, Simulation

HOUR = 360  # steps of 10 sim seconds


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    env = {"DATABASE_URL": served_database_url(), "SMALLVILLE_STREAM_HEARTBEAT": "1"}
    with django_db_blocker.unblock(), production_server(env) as running:
        yield running


class Stream:
    """A stream read in a thread of its own: the events (seq, data) and heartbeats seen."""

    def __init__(self, server: ProductionServer, path: str, token: str, last: int | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        headers = {"Authorization": f"Token {token}", "Accept": "text/event-stream"}
        if last is not None:
            headers["Last-Event-ID"] = str(last)
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.heartbeats = 0
        self.stop_after: int | None = None  # stop reading once this seq has come
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        seq, data = None, None
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("id: "):
                    seq = int(text[4:])
                elif text.startswith("data: "):
                    data = json.loads(text[6:])
                elif text == ": heartbeat":
                    self.heartbeats += 1
                elif text == "" and seq is not None and data is not None:
                    self.events.append((seq, data))
                    if self.stop_after is not None and seq >= self.stop_after:
                        return
                    seq, data = None, None
        except OSError:
            return

    def wait_for(self, seq: int) -> None:
        """Until the event `seq` has come (or the stream ended, or a minute passed)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.thread.is_alive():
            if self.events and self.events[-1][0] >= seq:
                return
            time.sleep(0.05)

    def close(self) -> None:
        if self.conn.sock is not None:
            self.conn.sock.shutdown(socket.SHUT_RDWR)  # the reader sees the end
        self.thread.join(10)
        self.conn.close()


def _token(user: User) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def _events_list(api: APIClient, simulation_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    url: str | None = f"/api/simulations/{simulation_id}/events/?page_size=1000"
    while url:
        page = api.get(url).json()
        rows += page["results"]
        url = page["next"]
    return rows


@pytest.mark.django_db(transaction=True)
def test_a_stream_delivers_every_event_of_a_three_resident_hour_once_in_seq_order(
    server: ProductionServer, api: APIClient, user: User
) -> None:
    simulation = create(api)
    stream = Stream(server, f"/api/simulations/{simulation['id']}/stream/", _token(user))
    assert stream.response.status == 200
    assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
    run = simulation_run_inline(simulation=Simulation.objects.get(pk=simulation["id"]), steps=HOUR)
    assert run.step == HOUR
    stream.wait_for(run.last_seq)
    stream.close()
    seqs = [seq for seq, _ in stream.events]
    assert seqs == list(range(1, run.last_seq + 1))
    # Each frame is the event as the events list shows it, its id the seq.
    assert [data for _, data in stream.events] == _events_list(api, simulation["id"])
    assert all(seq == data["seq"] for seq, data in stream.events)
    assert {data["step"] for _, data in stream.events} >= set(range(1, HOUR + 1))


@pytest.mark.django_db(transaction=True)
def test_a_stream_dropped_mid_run_and_resumed_with_last_event_id_loses_and_repeats_nothing(
    server: ProductionServer, api: APIClient, user: User
) -> None:
    simulation = create(api)
    row = Simulation.objects.get(pk=simulation["id"])
    path, token = f"/api/simulations/{simulation['id']}/stream/", _token(user)
    first = Stream(server, path, token)
    simulation_run_inline(simulation=row, steps=HOUR // 3)
    row.refresh_from_db()
    # Dropped halfway through what the run has written so far; the run goes on meanwhile.
    first.stop_after = row.last_seq // 2
    first.wait_for(row.last_seq // 2)
    first.close()
    simulation_run_inline(simulation=row, steps=HOUR // 3)
    resumed_from = first.events[-1][0]
    second = Stream(server, path, token, last=resumed_from)
    simulation_run_inline(simulation=row, steps=HOUR // 3)
    row.refresh_from_db()
    second.wait_for(row.last_seq)
    second.close()
    assert first.events[0][0] == 1 and second.events[0][0] == resumed_from + 1
    seqs = [seq for seq, _ in first.events + second.events]
    assert seqs == list(range(1, row.last_seq + 1))
    # `after` starts a stream the same way (EventSource cannot set headers).
    third = Stream(server, f"{path}?after={row.last_seq - 5}", token)
    third.wait_for(row.last_seq)
    third.close()
    assert [seq for seq, _ in third.events] == list(range(row.last_seq - 4, row.last_seq + 1))


@pytest.mark.django_db(transaction=True)
def test_filters_keep_only_the_kinds_and_residents_asked_for_and_idle_streams_beat(
    server: ProductionServer, api: APIClient, user: User
) -> None:
    simulation = create(api)
    row = Simulation.objects.get(pk=simulation["id"])
    one = row.agents.order_by("name").first()
    assert one is not None
    path = f"/api/simulations/{simulation['id']}/stream/?kinds=agent.moved&residents={one.name}"
    stream = Stream(server, path.replace(" ", "%20"), _token(user))
    row = simulation_run_inline(simulation=row, steps=30)
    expected = list(
        Event.objects.filter(simulation=row, kind="agent.moved", agent=one.name)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert expected
    stream.wait_for(expected[-1])
    time.sleep(2.5)  # an idle stream: heartbeats every second here (15 s by default)
    stream.close()
    assert [seq for seq, _ in stream.events] == expected
    assert stream.heartbeats >= 1


@pytest.mark.django_db(transaction=True)
def test_another_users_stream_is_404_and_bad_cursors_and_event_ids_are_400(
    server: ProductionServer, api: APIClient, user: User, other_user: User
) -> None:
    simulation = create(api)
    path = f"/api/simulations/{simulation['id']}/stream/"
    status, _, body = server.request("GET", path, token=_token(other_user))
    assert status == 404, body
    assert server.request("GET", path)[0] == 401
    token = _token(user)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    for header in ("abc", "-1", "1.5", "99999999999999999999"):
        headers = {"Authorization": f"Token {token}", "Last-Event-ID": header}
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        assert response.getheader("Content-Type") == "application/problem+json"
        problem = json.loads(response.read())
        assert response.status == 400 and "Last-Event-ID" in problem["detail"], problem
    conn.close()
    for query, field in (("after=x", "after"), ("kinds=,", "kinds"), ("kinds=A%20B", "kinds")):
        status, _, body = server.request("GET", f"{path}?{query}", token=token)
        fields = [error["field"] for error in json.loads(body)["errors"]]
        assert status == 400 and fields == [field], body
    # HEAD answers the headers and ends (no stream behind it).
    status, headers, body = server.request("HEAD", path, token=token)
    assert (status, body) == (200, b"") and headers["content-type"] == "text/event-stream"
    forged = base64.b64encode(b"foo").decode()
    events = f"/api/simulations/{simulation['id']}/events/?cursor={forged}"
    status, _, body = server.request("GET", events, token=token)
    assert status == 400 and "cursor" in json.loads(body)["detail"], body


@pytest.mark.django_db
def test_the_stream_view_refuses_before_streaming_under_the_test_client(
    api: APIClient, other_api: APIClient
) -> None:
    simulation = create(api)
    path = f"/api/simulations/{simulation['id']}/stream/"
    assert other_api.get(path).status_code == 404
    response = api.get(path, HTTP_LAST_EVENT_ID="seven", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 400
    assert "Last-Event-ID" in error_of(response)["detail"]
    names = ",".join(f"Resident {n}" for n in range(MAX_NAMES + 1))
    response = api.get(path, {"residents": names})
    assert response.status_code == 400 and "residents" in error_of(response)["detail"]
