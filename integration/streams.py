"""A simulation's live event stream (Server-Sent Events, docs/integration.md): what a
client asked for, the frames it is sent, and `follow`, the stream of a WSGI server (a
thread for each client: the development server). The ASGI server hands streams over to
integration.streamhub instead, which serves every client of a process from one query loop.

A frame is one committed event: `id:` its seq, `data:` the event as the events list shows
it. Comment lines (`: heartbeat`) keep an idle connection open through proxies.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from rest_framework.fields import DateTimeField

from world.models import Event
from world.selectors import events_after, simulations_last_seq

CHUNK = 500  # events read at once for a simulation
# The key of the WSGI environ where the ASGI server (smallville_project.gateway) offers to
# serve a stream: a view appends its StreamSpec to the list there and returns no body.
HANDOFF = "smallville.stream_handoff"

# Sent first: EventSource reconnects after this many ms (with Last-Event-ID).
RETRY = b"retry: 1000\n\n"
HEARTBEAT = b": heartbeat\n\n"
_TIME = DateTimeField()


@dataclass(frozen=True)
class StreamSpec:
    """One client's stream: the events of `simulation_id` after seq `after`, only those of
    `kinds` and `residents` when they are given."""

    simulation_id: int
    after: int = 0
    kinds: frozenset[str] = frozenset()
    residents: frozenset[str] = frozenset()

    def wants(self, event: Event) -> bool:
        return (not self.kinds or event.kind in self.kinds) and (
            not self.residents or event.agent in self.residents
        )


def event_data(event: Event) -> dict[str, Any]:
    """The event as the events list (api.simulations.serializers.EventSerializer) shows it."""
    return {
        "seq": event.seq,
        "step": event.step,
        "sim_time": _TIME.to_representation(event.sim_time),
        "kind": event.kind,
        "agent": event.agent,
        "payload": event.payload,
        "created_at": _TIME.to_representation(event.created_at),
    }


def frame(event: Event) -> bytes:
    data = json.dumps(event_data(event), ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.seq}\ndata: {data}\n\n".encode()


def frames(spec: StreamSpec, events: list[Event]) -> bytes:
    """The frames of the events `spec` wants (b"" for none)."""
    return b"".join(frame(event) for event in events if spec.wants(event))


def follow(spec: StreamSpec) -> Generator[bytes, None, None]:
    """The stream for a WSGI server: reads the log every SMALLVILLE_STREAM_POLL s in the
    request's thread until the client goes or the simulation is deleted."""
    poll, heartbeat = settings.SMALLVILLE_STREAM_POLL, settings.SMALLVILLE_STREAM_HEARTBEAT
    yield RETRY
    after, quiet_since = spec.after, time.monotonic()
    while True:
        events = events_after(simulation_id=spec.simulation_id, after=after, limit=CHUNK)
        gone = not events and not simulations_last_seq(ids=[spec.simulation_id])
        connection.close()  # none held between reads (a client may stay for hours)
        if gone:
            return
        if events:
            after = events[-1].seq
            body = frames(spec, events)
            if body:
                quiet_since = time.monotonic()
                yield body
            if len(events) == CHUNK:
                continue
        if time.monotonic() - quiet_since >= heartbeat:
            quiet_since = time.monotonic()
            yield HEARTBEAT
        time.sleep(poll)
