"""Replay serving speed: `python -m bench replay [--steps N]` prints one JSON object.

Steps per second the replay endpoint (`GET /api/simulations/{id}/replay/`) serves when a
client scrubs a whole sim day (8,640 steps at 10 s) in `MAX_REPLAY_STEPS` chunks, through
Django's full request stack (session auth, middleware, JSON rendering), for 25 residents
and 500. The 25-resident day is a real run (base_the_ville_n25, the minimal cognition,
offline, in one process); the 500-resident log is that day's resident events copied
twenty times onto the 500 residents of `bench.engine` (the 25 and their copies "<name> 2"
.. "<name> 20"), in SQL, since running 500 residents for a day takes most of an hour.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from bench.engine import simulation_of
from bench.machine import stamp
from runtime.engine import simulation_run_inline
from runtime.replay import MAX_REPLAY_STEPS
from world.models import Event, Simulation

DAY = 8640
REPEATS = 3

# The day's resident events of `source`, once per copy, named as bench.engine names them.
_COPY_SQL = """
INSERT INTO world_event (simulation_id, seq, step, sim_time, kind, agent, payload, created_at)
SELECT %s, %s + row_number() OVER (ORDER BY e.step, n, e.seq), e.step, e.sim_time, e.kind,
       e.agent || CASE WHEN n = 1 THEN '' ELSE ' ' || n END, e.payload, now()
FROM world_event e, generate_series(1, %s) AS n
WHERE e.simulation_id = %s AND e.step > 0 AND e.agent <> ''
"""


def copied_day(source: Simulation, size: int, owner: User) -> Simulation:
    """A simulation of `size` residents whose log after step 0 is `source`'s, per copy."""
    target = simulation_of(size, owner)
    copies = size // source.agents.count()
    with connection.cursor() as cursor:
        cursor.execute(_COPY_SQL, [target.pk, target.last_seq, copies, source.pk])
        cursor.execute(
            "UPDATE world_simulation SET step = %s, last_seq = "
            "(SELECT max(seq) FROM world_event WHERE simulation_id = %s) WHERE id = %s",
            [source.step, target.pk, target.pk],
        )
    target.refresh_from_db()
    return target


def scrub(client: Client, simulation: Simulation) -> dict[str, Any]:
    """Fetch every step of the simulation in chunks; the best of REPEATS scrubs."""
    url = f"/api/simulations/{simulation.pk}/replay/"
    times: list[float] = []
    size = requests = 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        size = requests = 0
        for first in range(0, simulation.step, MAX_REPLAY_STEPS):
            last = min(first + MAX_REPLAY_STEPS, simulation.step)
            response = client.get(url, {"from_step": first, "to_step": last})
            assert response.status_code == 200, response.content[:200]
            size += len(response.content)
            requests += 1
        times.append(time.perf_counter() - started)
    best, median = min(times), statistics.median(times)
    return {
        "residents": simulation.agents.count(),
        "steps": simulation.step,
        "events": Event.objects.filter(simulation=simulation).count(),
        "requests": requests,
        "bytes": size,
        "seconds_best": round(best, 2),
        "seconds_median": round(median, 2),
        "steps_per_s": round(simulation.step / best),
        "steps_per_s_median": round(simulation.step / median),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench replay", description=__doc__)
    parser.add_argument("--steps", type=int, default=DAY, help="steps run (default a sim day)")
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username="bench")
    client = Client()
    client.force_login(owner)
    started = time.perf_counter()
    day = simulation_run_inline(simulation=simulation_of(25, owner), steps=args.steps)
    run_seconds = time.perf_counter() - started
    stopped = {"status": day.status, "reason": day.status_reason, "step": day.step}
    crowd = copied_day(day, 500, owner)
    try:
        runs = [scrub(client, day), scrub(client, crowd)]
    finally:
        for simulation in (day, crowd):
            simulation.delete()
    report = {
        **stamp(),
        "backend": "offline",
        "cognition": "minimal",
        "chunk_steps": MAX_REPLAY_STEPS,
        "seconds_to_run_the_25_resident_day": round(run_seconds, 1),
        "run_ended": stopped,
        "runs": runs,
    }
    print(json.dumps(report, indent=2))
