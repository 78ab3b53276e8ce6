"""The stream hub on an event loop of the test's own, on the real database: clients of one
simulation joining at different seqs each get the events after theirs once, in order,
filtered; a deleted simulation ends its streams; closing the hub ends every stream."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from integration.streamhub import Client, Hub, serve
from integration.streams import StreamSpec
from tests.api import advance, create
from world.models import Event, Simulation


class Peer:
    """The client's side of one stream: what was sent, and a hang-up."""

    def __init__(self) -> None:
        self.body = b""
        self.ended = False
        self.hang_up = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.body += message.get("body", b"")
        self.ended = self.ended or not message.get("more_body", False)

    async def receive(self) -> dict[str, Any]:
        await self.hang_up.wait()
        return {"type": "http.disconnect"}

    def seqs(self) -> list[int]:
        return [int(seq) for seq in re.findall(rb"^id: (\d+)$", self.body, re.M)]


async def _until(condition: Any) -> None:
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_clients_joining_at_different_seqs_each_get_theirs_once_in_order(api: APIClient) -> None:
    simulation = create(api)
    pk = simulation["id"]
    moved = frozenset({"agent.moved"})

    async def scenario() -> tuple[Peer, Peer, Peer]:
        hub = Hub(poll=0.05)
        everything, late, only_moves = Peer(), Peer(), Peer()
        tasks = [asyncio.create_task(serve(hub, StreamSpec(pk), *io(everything)))]
        await _db(advance, pk, 5)
        middle = await _db(_last_seq, pk)
        tasks.append(asyncio.create_task(serve(hub, StreamSpec(pk, after=middle), *io(late))))
        spec = StreamSpec(pk, after=middle, kinds=moved)
        tasks.append(asyncio.create_task(serve(hub, spec, *io(only_moves))))
        await _db(advance, pk, 5)
        last = await _db(_last_seq, pk)
        await _until(lambda: everything.seqs()[-1:] == [last] and late.seqs()[-1:] == [last])
        for peer in (everything, late, only_moves):
            peer.hang_up.set()
        await asyncio.gather(*tasks)
        await hub.idle()
        assert not hub.clients  # every client left
        return everything, late, only_moves

    everything, late, only_moves = asyncio.run(scenario())
    last = _last_seq(pk)
    assert everything.seqs() == list(range(1, last + 1))
    middle = late.seqs()[0] - 1
    assert late.seqs() == list(range(middle + 1, last + 1))
    moves = Event.objects.filter(simulation_id=pk, seq__gt=middle, kind="agent.moved")
    assert only_moves.seqs() == list(moves.order_by("seq").values_list("seq", flat=True))
    assert all(peer.ended for peer in (everything, late, only_moves))


@pytest.mark.django_db(transaction=True)
def test_a_deleted_simulation_ends_its_streams_and_closing_the_hub_ends_all(
    api: APIClient,
) -> None:
    doomed, kept = create(api)["id"], create(api)["id"]

    async def scenario() -> tuple[Peer, Peer]:
        hub = Hub(poll=0.05)
        first, second = Peer(), Peer()
        one = asyncio.create_task(serve(hub, StreamSpec(doomed), *io(first)))
        two = asyncio.create_task(serve(hub, StreamSpec(kept), *io(second)))
        await _until(lambda: first.seqs() and second.seqs())
        await _db(lambda: Simulation.objects.filter(pk=doomed).delete())
        await asyncio.wait_for(one, 20)  # ended by the hub, not by the client
        hub.close()
        await asyncio.wait_for(two, 20)
        await hub.idle()
        return first, second

    first, second = asyncio.run(scenario())
    assert first.ended and second.ended
    assert second.seqs() == list(range(1, _last_seq(kept) + 1))


def test_a_client_takes_only_events_that_run_on_from_its_cursor() -> None:
    client = Client(StreamSpec(1, after=10))
    client.take(_events(15, 20))  # read for a client further on: a gap, not for this one
    assert client.cursor == 10 and client.pending.empty()
    client.take(_events(5, 12))
    assert client.cursor == 12
    assert re.findall(rb"id: (\d+)", client.pending.get_nowait() or b"") == [b"11", b"12"]
    client.take(_events(8, 12))  # nothing new
    assert client.cursor == 12 and client.pending.empty()


async def _db(function: Any, *args: Any) -> Any:
    """`function` in a thread, as the engine writes the log beside the server."""

    def call() -> Any:
        try:
            return function(*args)
        finally:
            connection.close()

    return await asyncio.to_thread(call)


def io(peer: Peer) -> tuple[Any, Any]:
    return peer.send, peer.receive


def _last_seq(pk: int) -> int:
    return Simulation.objects.get(pk=pk).last_seq


def _events(first: int, last: int) -> list[Event]:
    from django.utils import timezone

    now = timezone.now()
    return [
        Event(seq=seq, step=1, sim_time=now, kind="agent.moved", agent="Ada", created_at=now)
        for seq in range(first, last + 1)
    ]
