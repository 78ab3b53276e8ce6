"""What a stream sends and the WSGI server's stream (`follow`, the development server's):
frames of the events after the cursor, filtered, each the events list's item; the stream
ends when its simulation is deleted."""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.test import APIClient

from integration.streams import RETRY, StreamSpec, follow
from tests.api import advance, create
from world.models import Event, Simulation


def _frames(body: bytes) -> list[tuple[int, dict[str, object]]]:
    found = re.findall(rb"^id: (\d+)\ndata: (.*)$", body, re.M)
    return [(int(seq), json.loads(data)) for seq, data in found]


@pytest.mark.django_db(transaction=True)
def test_follow_sends_the_events_after_the_cursor_as_the_events_list_shows_them(
    api: APIClient,
) -> None:
    simulation = create(api)
    advance(simulation["id"], 3)
    last = Simulation.objects.get(pk=simulation["id"]).last_seq
    stream = follow(StreamSpec(simulation["id"], after=2))
    assert next(stream) == RETRY
    got: list[tuple[int, dict[str, object]]] = []
    while not got or got[-1][0] < last:
        got += _frames(next(stream))
    assert [seq for seq, _ in got] == list(range(3, last + 1))
    listed = api.get(f"/api/simulations/{simulation['id']}/events/?seq_after=2&page_size=1000")
    assert [data for _, data in got] == listed.json()["results"]
    stream.close()


@pytest.mark.django_db(transaction=True)
def test_follow_filters_and_ends_when_the_simulation_is_deleted(api: APIClient) -> None:
    simulation = create(api)
    advance(simulation["id"], 2)
    one = Event.objects.filter(simulation_id=simulation["id"], kind="agent.moved").first()
    assert one is not None
    kinds, residents = frozenset({"agent.moved"}), frozenset({one.agent})
    stream = follow(StreamSpec(simulation["id"], kinds=kinds, residents=residents))
    next(stream)
    wanted = Event.objects.filter(
        simulation_id=simulation["id"], kind="agent.moved", agent=one.agent
    )
    got = _frames(next(stream))
    assert [seq for seq, _ in got] == list(wanted.order_by("seq").values_list("seq", flat=True))
    Simulation.objects.filter(pk=simulation["id"]).delete()
    assert list(stream) == []  # ends
