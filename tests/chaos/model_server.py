"""A slow, deterministic model server for the chaos tests: every Smallville prompt task
answered by `bench.fake_model.answer` (chat) and hash vectors (embeddings), after a delay
that can be set per task while a test runs, so a worker can be caught inside a call."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.fake_model import answer
from tests.llm.fake_openai import chat_completion, fake_vector, send_json

DIMENSIONS = 384


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client killed mid-call (the point of these tests) is no error of the server."""


class ModelServer:
    def __init__(self) -> None:
        self.delay = 0.0  # seconds before each chat reply ...
        self.delays: dict[str, float] = {}  # ... or this task's own
        self.calls = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def settings(self) -> dict[str, str]:
        """The worker's environment (and this process's settings) for this server."""
        return {
            "SMALLVILLE_LLM_BACKEND": "openai",
            "SMALLVILLE_LLM_BASE_URL": self.base_url,
            "SMALLVILLE_LLM_API_KEY": "chaos-key",
            "SMALLVILLE_LLM_MODEL": "fake-model",
            "SMALLVILLE_EMBEDDING_BACKEND": "openai",
            "SMALLVILLE_EMBEDDING_BASE_URL": self.base_url,
            "SMALLVILLE_EMBEDDING_MODEL": "fake-embedding",
        }

    def slow(self, delay: float = 0.0, **per_task: float) -> None:
        self.delay, self.delays = delay, dict(per_task)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": fake_vector(t, DIMENSIONS)}
                        for i, t in enumerate(texts)
                    ]
                    send_json(self, 200, {"object": "list", "data": data, "model": body["model"]})
                    return
                task = body.get("response_format", {}).get("json_schema", {}).get("name", "")
                with fake._lock:
                    fake.calls += 1
                time.sleep(fake.delays.get(task, fake.delay))
                prompt = body["messages"][-1]["content"]
                content = json.dumps(answer(prompt))
                send_json(self, 200, chat_completion(content, body["model"]))

        return Handler
