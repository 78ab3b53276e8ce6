"""The load bench's clients: what each of the 16 does, over real HTTP, and what it counts."""

from __future__ import annotations

import http.client
import json
import random
import socket
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from smallville_project import gunicorn_conf

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "127.0.0.1"  # loopback only
# The server, as `make serve` starts it (the Makefile runs the venv's gunicorn script).
SERVER_COMMAND = [sys.executable, "-m", "gunicorn", "-c", "python:smallville_project.gunicorn_conf"]
# For comparison (--server runserver): the development server of `make web`.
DEV_SERVER_COMMAND = [sys.executable, "manage.py", "runserver", "--noreload"]
# application_name of each kind of process, to tell their database connections apart.
APP_NAMES = {
    "web": "smallville-load-web",
    "worker": "smallville-load-worker",
    "bench": "smallville-load-bench",
}
SERVER_LOG = ROOT / ".pgdata" / "gunicorn-load.log"
HIGH_RATE = "1000000/minute"
THROTTLES = ("RUN", "INTERVIEW", "WHISPER", "SAY")
FIRST_STEPS = 5
SMALL_BASE = "base_the_ville_isabella_maria_klaus"

# Relative weights of the operations (75 reads, 25 writes).
MIX = {
    "simulations.list": 10,
    "progress": 20,
    "residents.list": 15,
    "events.cursor": 20,
    "memories.retrieve": 10,
    "whisper": 7,
    "interview": 7,
    "objects.set": 8,
    "simulations.create": 3,
}
WRITES = {"whisper", "interview", "objects.set", "simulations.create"}
QUERIES = ["Valentine's Day party", "breakfast", "work at the cafe", "my neighbours", "music"]
QUESTIONS = ["What are you doing today?", "Who are your friends?", "What do you want most?"]
WHISPERS = [
    "I should say hello to my neighbours today",
    "I want to read a good book this evening",
    "I should take a walk in the park",
]
STATES = ["being cleaned", "out of order", "idle"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Client:
    """One keep-alive HTTP connection with a token; a stale connection is never reused."""

    def __init__(self, port: int, token: str, timeout: float = 60) -> None:
        self.port = port
        self.token = token
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.last_used = 0.0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        # The server closes an idle keep-alive connection after `keepalive` seconds.
        idle = time.monotonic() - self.last_used
        if self.conn is not None and idle > gunicorn_conf.keepalive - 1:
            self.close()
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        self.last_used = time.monotonic()
        if response.will_close:
            self.close()
        return response.status, payload

    def json(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        status, payload = self.request(method, path, body)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {payload[:300]!r}")
        return json.loads(payload)


@dataclass
class Target:
    """What the clients work on: the running simulation and its names."""

    port: int
    token: str
    simulation: int
    residents: list[str]
    objects: list[str]


@dataclass
class Tally:
    """One client thread's results: latencies (s) and statuses by endpoint (0: no answer)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    failures: Counter[str] = field(default_factory=Counter)


class Worker(threading.Thread):
    """A client thread: weighted random operations until the deadline."""

    def __init__(self, index: int, target: Target, deadline: float, seed: int) -> None:
        super().__init__(name=f"load-client-{index}", daemon=True)
        self.target = target
        self.deadline = deadline
        self.rng = random.Random(seed * 1000 + index)
        self.client = Client(target.port, target.token)
        self.tally = Tally()
        self.next_events: str | None = None  # the event log's `next` page
        self.seq_after = 0
        self.ops: dict[str, Callable[[], tuple[str, str, Any]]] = {
            "simulations.list": lambda: ("GET", "/api/simulations/?limit=20", None),
            "progress": lambda: ("GET", f"{self.sim}/progress/", None),
            "residents.list": lambda: ("GET", f"{self.sim}/residents/?limit=25", None),
            "events.cursor": self.events,
            "memories.retrieve": lambda: (
                "POST",
                f"{self.resident()}/retrieve/",
                {"query": self.rng.choice(QUERIES), "k": 5},
            ),
            "whisper": lambda: (
                "POST",
                f"{self.resident()}/whisper/",
                {"statement": self.rng.choice(WHISPERS)},
            ),
            "interview": lambda: (
                "POST",
                f"{self.resident()}/interview/",
                {"persona": "a visitor", "question": self.rng.choice(QUESTIONS)},
            ),
            "objects.set": lambda: (
                "PUT",
                f"{self.sim}/objects/",
                {"address": self.rng.choice(target.objects), "state": self.rng.choice(STATES)},
            ),
            "simulations.create": lambda: (
                "POST",
                "/api/simulations/",
                {"base": SMALL_BASE, "name": "load bench extra"},
            ),
        }
        self.names = list(MIX)
        self.weights = [MIX[name] for name in self.names]

    @property
    def sim(self) -> str:
        return f"/api/simulations/{self.target.simulation}"

    def resident(self) -> str:
        name = self.rng.choice(self.target.residents).replace(" ", "%20")
        return f"{self.sim}/residents/{name}"

    def events(self) -> tuple[str, str, Any]:
        if self.next_events is not None:
            return "GET", self.next_events, None
        return "GET", f"{self.sim}/events/?page_size=100&seq_after={self.seq_after}", None

    def events_seen(self, payload: bytes) -> None:
        page = json.loads(payload)
        if page["results"]:
            self.seq_after = page["results"][-1]["seq"]
        nxt = page.get("next")
        if nxt:
            parts = urlsplit(nxt)
            self.next_events = f"{parts.path}?{parts.query}"
        else:
            self.next_events = None

    def run(self) -> None:
        try:
            while time.monotonic() < self.deadline:
                name = self.rng.choices(self.names, self.weights)[0]
                method, path, body = self.ops[name]()
                started = time.perf_counter()
                try:
                    status, payload = self.client.request(method, path, body)
                except (OSError, http.client.HTTPException) as exc:
                    status, payload = 0, b""
                    self.tally.failures[f"{name}: {type(exc).__name__}"] += 1
                self.tally.latencies[name].append(time.perf_counter() - started)
                self.tally.statuses[name][status] += 1
                if name == "events.cursor" and status == 200:
                    self.events_seen(payload)
                elif name == "events.cursor":
                    self.next_events = None
        finally:
            self.client.close()


def percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": at(1.0)}
