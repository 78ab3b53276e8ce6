"""What the load bench samples while it runs: database connections, lock waits, CPU."""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection

from world.models import Simulation

from .clients import APP_NAMES


def group_cpu_seconds(pgid: int) -> float:
    """CPU time (user + system) used so far by the live processes of process group `pgid`."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if int(fields[2]) == pgid:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    at: float
    phase: str
    step: int
    connections: dict[str, int]


class Sampler(threading.Thread):
    """Every second: the simulation's step and the database's connections by kind."""

    def __init__(self, simulation_id: int) -> None:
        super().__init__(name="load-sampler", daemon=True)
        self.simulation_id = simulation_id
        self.phase = "setup"
        self.samples: list[Sample] = []
        self.stopping = threading.Event()

    def sample(self) -> Sample:
        kinds = {name: kind for kind, name in APP_NAMES.items()}
        counts: Counter[str] = Counter()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT application_name, count(*), count(*) FILTER "
                "(WHERE wait_event_type = 'Lock') FROM pg_stat_activity "
                "WHERE datname = current_database() GROUP BY 1"
            )
            for name, count, locked in cursor.fetchall():
                counts[kinds.get(name, "other")] += count
                counts["waiting_on_a_lock"] += locked
        counts["total"] = sum(counts.values()) - counts["waiting_on_a_lock"]
        step = Simulation.objects.values_list("step", flat=True).get(pk=self.simulation_id)
        return Sample(time.monotonic(), self.phase, step, dict(counts))

    def run(self) -> None:
        try:
            while not self.stopping.wait(0 if not self.samples else 1.0):
                self.samples.append(self.sample())
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10)

    def summary(self, phase: str) -> dict[str, Any]:
        samples = [s for s in self.samples if s.phase == phase]
        if len(samples) < 2:
            return {"samples": len(samples)}
        span = samples[-1].at - samples[0].at
        kinds = ["total", *APP_NAMES, "other", "waiting_on_a_lock"]
        return {
            "seconds": round(span, 1),
            "samples": len(samples),
            "steps_per_s": round((samples[-1].step - samples[0].step) / span, 1),
            "db_connections": {
                kind: {
                    "max": max(s.connections.get(kind, 0) for s in samples),
                    "mean": round(statistics.fmean(s.connections.get(kind, 0) for s in samples), 1),
                }
                for kind in kinds
            },
        }
