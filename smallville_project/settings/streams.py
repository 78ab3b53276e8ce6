"""The live event stream (integration.streams): seconds between heartbeats of an idle
stream, and between the stream hub's reads of the log (so an event's delay at most)."""

from __future__ import annotations

from smallville_project.environment import env_float

SMALLVILLE_STREAM_HEARTBEAT = env_float("SMALLVILLE_STREAM_HEARTBEAT", 15)
SMALLVILLE_STREAM_POLL = env_float("SMALLVILLE_STREAM_POLL", 0.25)
