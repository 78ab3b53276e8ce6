"""A scripted OpenAI-compatible server on 127.0.0.1 for the real `openai` client to talk to.

Chat completions answer from a script, one entry per request, in order: a reply, an
HTTP error, or a reply slower than the client's timeout. Embeddings answer with
deterministic vectors (sha256 of the text), `dimensions` wide when asked.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass
class Reply:
    status: int = 200
    content: str = ""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def ok(content: str | dict[str, Any]) -> Reply:
    return Reply(content=content if isinstance(content, str) else json.dumps(content))


def error(status: int, message: str = "", **headers: str) -> Reply:
    """An error answer; `message` replaces "scripted <status>" in its body."""
    return Reply(status=status, content=message, headers=headers)


def slow(seconds: float, content: str | dict[str, Any]) -> Reply:
    reply = ok(content)
    reply.delay = seconds
    return reply


def fake_vector(text: str, dimensions: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    return np.random.default_rng(seed).normal(size=dimensions).astype(np.float32).tolist()


def chat_completion(
    content: str, model: str, completion_id: str = "chatcmpl-1", tokens: tuple[int, int] = (11, 5)
) -> dict[str, Any]:
    """A chat completion response as the API sends it: one choice, `content` its message."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens[0],
            "completion_tokens": tokens[1],
            "total_tokens": sum(tokens),
        },
    }


def send_json(
    handler: BaseHTTPRequestHandler,
    status: int,
    payload: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many agents connect at once; the default backlog is 5


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.default: Reply | None = None
        self.requests: list[dict[str, Any]] = []
        self.models: list[dict[str, Any]] | None = None  # GET /models answers 404 when None
        self.embedding_dimensions = 1536  # a model's native size when `dimensions` is absent
        self.embedding_errors = 0  # the next this many embedding requests get a 500
        self.embedding_errors_for = ""  # ... only those whose texts start with this
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.default is None:
            raise AssertionError("the fake server ran out of scripted replies")
        return self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if fake.models is not None and self.path.endswith("/models"):
                    self._send(200, {"object": "list", "data": fake.models})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "scripted"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    headers = {key.lower(): value for key, value in self.headers.items()}
                    fake.requests.append({"path": self.path, "body": body, "headers": headers})
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if self.path.endswith("/embeddings"):
                        self._embeddings(body)
                    elif self.path.endswith("/chat/completions"):
                        self._chat(body)
                    else:  # no tokenizer endpoint, as OpenAI's own API
                        self._send(404, {"error": {"message": "not found", "type": "scripted"}})
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _chat(self, body: dict[str, Any]) -> None:
                reply = fake._next()
                time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(
                        reply.status,
                        {
                            "error": {
                                "message": reply.content or f"scripted {reply.status}",
                                "type": "scripted",
                            }
                        },
                        reply.headers,
                    )
                    return
                completion_id = f"chatcmpl-{len(fake.requests)}"
                self._send(200, chat_completion(reply.content, body["model"], completion_id))

            def _embeddings(self, body: dict[str, Any]) -> None:
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                with fake._lock:
                    failing = fake.embedding_errors > 0 and all(
                        text.startswith(fake.embedding_errors_for) for text in texts
                    )
                    fake.embedding_errors -= int(failing)
                if failing:
                    self._send(500, {"error": {"message": "scripted 500", "type": "scripted"}})
                    return
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                dims = body.get("dimensions") or fake.embedding_dimensions
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(text, dims)}
                    for i, text in enumerate(texts)
                ]
                # Out of order, as the API allows: clients must sort by index.
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data[::-1],
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                send_json(self, status, payload, headers)

        return Handler
