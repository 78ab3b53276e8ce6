"""The policy server: an OpenAI-compatible HTTP server that answers as the offline backend.

Each chat completion carries its task, inputs and seed in the body's `smallville` field
(the `openai` backend sends it with SMALLVILLE_LLM_SEND_TASK), and the reply is the
offline policy's answer for them (`task.run_offline`), as JSON content, with usage counted
as the offline backend counts it (`llm.tokens`). So a run through the `openai` backend
makes the same calls and the same day as an offline run, while each answer takes as long
as a latency drawn from `fixed:SECONDS` or `lognormal:MEAN:P95` (an RNG seeded per call,
so a rerun draws the same delays), and at most `slots` answers are worked on at once
(the others queue, as on a real server; by the body's `priority`, lower first, then in
arrival order, as vLLM's priority policy serves them). For benchmarks and tests of wall
time and call patterns; `manage.py policy_server` serves it.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.db import connections
from pydantic import ValidationError

from .backends import TASK_FIELD
from .errors import UnknownTask
from .tasks import task_get
from .tokens import count_message_tokens, count_tokens

MODEL = "smallville-policy"
_Z95 = 1.6448536269514722  # the standard normal's 95th percentile


class BadRequest(ValueError):
    """A request the server cannot answer: a 400 with this message."""


@dataclass(frozen=True)
class Latency:
    """How long an answer takes: `fixed:SECONDS`, or `lognormal:MEAN:P95` (seconds)."""

    spec: str
    mu: float  # of the log of the delay; for `fixed`, the delay itself
    sigma: float  # 0 for `fixed`

    @classmethod
    def parse(cls, spec: str) -> Latency:
        kind, _, rest = spec.partition(":")
        try:
            values = [float(v) for v in rest.split(":")] if rest else []
        except ValueError:
            raise ValueError(f"latency {spec!r}: the numbers are not numbers") from None
        if kind == "fixed" and len(values) == 1 and values[0] >= 0:
            return cls(spec, values[0], 0.0)
        if kind == "lognormal" and len(values) == 2 and 0 < values[0] < values[1]:
            return cls(spec, *_lognormal(mean=values[0], p95=values[1]))
        raise ValueError(
            f"latency {spec!r}: expected fixed:SECONDS (>= 0) or lognormal:MEAN:P95 "
            "(0 < MEAN < P95)"
        )

    @property
    def mean(self) -> float:
        return math.exp(self.mu + self.sigma**2 / 2) if self.sigma else self.mu

    def draw(self, rng: random.Random) -> float:
        return rng.lognormvariate(self.mu, self.sigma) if self.sigma else self.mu


def _lognormal(*, mean: float, p95: float) -> tuple[float, float]:
    """(mu, sigma) of the lognormal with this mean and 95th percentile: from
    ln p95 - ln mean = z95 * sigma - sigma^2 / 2, the smaller root. No lognormal has a
    95th percentile above e^(z95^2 / 2) (about 3.87) times its mean."""
    gap = math.log(p95 / mean)
    disc = _Z95**2 - 2 * gap
    if disc < 0:
        raise ValueError(
            f"latency lognormal:{mean:g}:{p95:g}: a lognormal's 95th percentile is at most "
            f"{math.exp(_Z95**2 / 2):.2f} times its mean"
        )
    sigma = _Z95 - math.sqrt(disc)
    return math.log(mean) - sigma**2 / 2, sigma


def _priority(body: dict[str, Any]) -> int:
    priority = body.get("priority", 0)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise BadRequest(f"priority must be an integer, not {priority!r}")
    return priority


def policy_answer(body: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The offline backend's reply to a chat completion body, and its usage. A policy that
    breaks its own schema answers nothing usable (empty content), as the offline backend
    fails such a call. Raises BadRequest for a body that does not name its task."""
    field = body.get(TASK_FIELD)
    if not isinstance(field, dict):
        raise BadRequest(
            f"no {TASK_FIELD!r} field: this server answers as Smallville's offline policy, "
            "so each request must carry its task, inputs and seed (set "
            "SMALLVILLE_LLM_SEND_TASK=true for the openai backend)"
        )
    name, inputs, seed = field.get("task"), field.get("inputs"), field.get("seed")
    if not isinstance(name, str) or not isinstance(inputs, dict) or not isinstance(seed, int):
        raise BadRequest(f"{TASK_FIELD!r} needs a task (text), inputs (an object), a seed (int)")
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages
    ):
        raise BadRequest("messages must be a list of messages with text content")
    try:
        task = task_get(name)
    except UnknownTask:
        raise BadRequest(f"unknown task {name!r}") from None
    try:
        content = task.run_offline(seed=seed, inputs=inputs).model_dump_json()
    except ValidationError:
        content = ""
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(f"task {name!r}: the inputs do not fit its policy: {exc!r}") from None
    usage = {
        "prompt_tokens": count_message_tokens(messages),
        "completion_tokens": count_tokens(content),
    }
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return content, usage


class PriorityGate:
    """At most `slots` holders at once; a freed slot goes to the waiting request of the
    lowest priority number, the earliest on ties."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: list[tuple[int, int]] = []  # (priority, ticket), a heap
        self._tickets = itertools.count()
        self._changed = threading.Condition()

    @contextmanager
    def held(self, priority: int) -> Iterator[None]:
        with self._changed:
            me = (priority, next(self._tickets))
            heapq.heappush(self._waiting, me)
            self._changed.wait_for(lambda: self._free > 0 and self._waiting[0] == me)
            heapq.heappop(self._waiting)
            self._free -= 1
            self._changed.notify_all()
        try:
            yield
        finally:
            with self._changed:
                self._free += 1
                self._changed.notify_all()


def client_settings(base_url: str, model: str = MODEL) -> dict[str, object]:
    """The SMALLVILLE_LLM_* settings that point the `openai` backend at a policy server."""
    return {
        "SMALLVILLE_LLM_BACKEND": "openai",
        "SMALLVILLE_LLM_BASE_URL": base_url,
        "SMALLVILLE_LLM_API_KEY": "policy",
        "SMALLVILLE_LLM_MODEL": model,
        "SMALLVILLE_LLM_SEND_TASK": True,
    }


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when 25 agents call at once.
    request_queue_size = 256
    daemon_threads = True

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """A request's thread closes the database connections it opened (the stand-in
        caches the vectors of what it rates) as it ends, rather than leave them open."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            connections.close_all()


class PolicyServer:
    """`with PolicyServer(latency="fixed:1", slots=8) as server:` serves at server.base_url
    (port 0: a free one) from a thread of this process until the block ends."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: str = "fixed:0",
        slots: int = 8,
        seed: int = 0,
        model: str = MODEL,
    ) -> None:
        if slots < 0:
            raise ValueError("slots must be 0 (no limit) or more")
        self.latency = Latency.parse(latency)
        self.slots = slots
        self.seed = seed
        self.model = model
        self._gate = PriorityGate(slots) if slots else None
        self.in_flight = self.peak = 0  # answers being worked on now, and the most at once
        self.answered = 0  # chat completions asked of this server
        self._count = threading.Lock()
        self._server = _Server((host, port), self._handler())
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def settings(self) -> dict[str, object]:
        """The SMALLVILLE_LLM_* settings that point the `openai` backend at this server."""
        return client_settings(self.base_url, self.model)

    def env(self) -> dict[str, str]:
        """The same settings as environment variables, for a worker process."""
        return {
            key: "true" if value is True else str(value) for key, value in self.settings().items()
        }

    def start(self) -> PolicyServer:
        # The socket server's own loop (it spawns a thread per request), not a pool's task.
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="policy-server", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> PolicyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """A chat completion for `body`, after the latency drawn for its call, in a slot."""
        content, usage = policy_answer(body)
        priority = _priority(body)  # refused with a 400 whether or not slots queue it
        field = body[TASK_FIELD]
        rng = random.Random(f"{self.seed}\0{field['task']}\0{field['seed']}")
        delay = self.latency.draw(rng)
        with self._gate.held(priority) if self._gate else nullcontext(), self._working():
            time.sleep(delay)
        return {
            "id": f"policy-{field['seed']:x}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }

    @contextmanager
    def _working(self) -> Iterator[None]:
        with self._count:
            self.in_flight += 1
            self.answered += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            yield
        finally:
            with self._count:
                self.in_flight -= 1

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "smallville"}],
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, server.models())
                else:
                    self._error(404, f"no such endpoint: GET {self.path}")

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._error(404, f"no such endpoint: POST {self.path}")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"null")
                    if not isinstance(body, dict):
                        raise BadRequest("the body must be a JSON object")
                    self._send(200, server.answer(body))
                except json.JSONDecodeError:
                    self._error(400, "the body is not JSON")
                except BadRequest as exc:
                    self._error(400, str(exc))

            def _error(self, status: int, message: str) -> None:
                kind = "invalid_request_error" if status == 400 else "not_found_error"
                self._send(status, {"error": {"message": message, "type": kind}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
