"""The one fake model server of the tests: OpenAI-compatible, on 127.0.0.1, threaded, for
the real `openai` clients of this process or of a worker's.

`ModelServer(answerer)` serves
- POST /v1/chat/completions: each answered by its answerer (below), after the server's
  delay (for every call, per task, or per text in the prompt: `slow`);
- POST /v1/embeddings: deterministic vectors of the text's sha256, `dimensions` wide when
  asked, else `embedding_dimensions`, out of order (as the API allows); the next
  `embedding_errors` requests (whose texts start with `embedding_errors_for`) get a 500;
- GET /v1/models: `models` when set, else a 404.
It keeps every request (`requests`) and the most calls it had in flight at once.

Answerers take a chat completion's body and return a `Reply`:
- `Scripted`: replies, errors and slow replies in order, then a default (the llm tests);
- `FromPrompt(rule)`: the rule's answer from the prompt's text alone (the cognition tests'
  prompt reader, tests/agents/cognition/prompt_rules.py);
- `PerTask(rules)`: each task's rule on the prompt (the reflection tests' citations);
- `PolicyAnswers`: the offline policy's answer (`llm.policy_server`), the same day as an
  offline run, with the delays and kills of the chaos tests around it.
An answerer that raises answers a 500 that names the error.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from llm.backends import TASK_FIELD
from llm.policy_server import BadRequest, policy_answer

Answer = dict[str, Any]


@dataclass
class Reply:
    status: int = 200
    content: str = ""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    usage: tuple[int, int] = (11, 5)  # (prompt, completion) tokens


Answerer = Callable[[dict[str, Any]], Reply]


def ok(content: str | Answer) -> Reply:
    return Reply(content=content if isinstance(content, str) else json.dumps(content))


def error(status: int, message: str = "", **headers: str) -> Reply:
    """An error answer; `message` replaces "scripted <status>" in its body."""
    return Reply(status=status, content=message, headers=headers)


def slow(seconds: float, content: str | Answer) -> Reply:
    reply = ok(content)
    reply.delay = seconds
    return reply


def fake_vector(text: str, dimensions: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    return np.random.default_rng(seed).normal(size=dimensions).astype(np.float32).tolist()


def task_of(body: dict[str, Any]) -> str:
    """The task a chat request is for: its response format's name, else its task field."""
    name = body.get("response_format", {}).get("json_schema", {}).get("name")
    return name or (body.get(TASK_FIELD) or {}).get("task", "")


def prompt_of(body: dict[str, Any]) -> str:
    """The prompt a chat request sends: its user messages."""
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")


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


class Scripted:
    """One scripted reply per request, in order; then `default`, if set."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.default: Reply | None = None
        self._lock = threading.Lock()

    def push(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.default is None:
            raise AssertionError("the fake server ran out of scripted replies")
        return self.default


class FromPrompt:
    """The rule's answer, from the request's prompt alone (not its task or schema)."""

    def __init__(self, rule: Callable[[str], Answer]) -> None:
        self.rule = rule

    def __call__(self, body: dict[str, Any]) -> Reply:
        return ok(self.rule(prompt_of(body)))


class PerTask:
    """Each task's rule on the prompt; `default` for the other tasks."""

    def __init__(self, rules: Mapping[str, Callable[[str], Answer]], default: Answer) -> None:
        self.rules, self.default = rules, default

    def __call__(self, body: dict[str, Any]) -> Reply:
        rule = self.rules.get(task_of(body))
        return ok(rule(prompt_of(body)) if rule else self.default)


def policy_answers(body: dict[str, Any]) -> Reply:
    """The offline policy's answer (the request carries its task: SMALLVILLE_LLM_SEND_TASK)."""
    try:
        content, usage = policy_answer(body)
    except BadRequest as exc:
        return Reply(status=400, content=str(exc))
    return Reply(content=content, usage=(usage["prompt_tokens"], usage["completion_tokens"]))


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many agents connect at once; the default backlog is 5
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that left mid-call (timed out, or its worker killed) is no error."""


class ModelServer:
    def __init__(
        self,
        answerer: Answerer | None = None,
        embedding_dimensions: int = 1536,
        host: str = "127.0.0.1",
    ) -> None:
        self.answerer: Answerer = answerer or Scripted()
        # {"path", "body", "headers", "client" (its address), "answered"}, in order
        self.requests: list[dict[str, Any]] = []
        self.models: list[dict[str, Any]] | None = None  # GET /models answers 404 when None
        self.embedding_dimensions = embedding_dimensions  # when `dimensions` is not asked
        self.embedding_errors = 0  # the next this many embedding requests get a 500
        self.embedding_errors_for = ""  # ... only those whose texts start with this
        self.delay = 0.0  # seconds before each chat reply ...
        self.delays: dict[str, float] = {}  # ... or this task's own
        self.prompt_delays: dict[str, float] = {}  # ... or a text's in the prompt
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self.host = host  # another address for hosts in other network namespaces
        self._server = _Server((host, 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self._server.server_address[1]}/v1"

    @property
    def scripted(self) -> Scripted:
        assert isinstance(self.answerer, Scripted), "this server is not scripted"
        return self.answerer

    def push(self, *replies: Reply) -> None:
        self.scripted.push(*replies)

    @property
    def default(self) -> Reply | None:
        return self.scripted.default

    @default.setter
    def default(self, reply: Reply | None) -> None:
        self.scripted.default = reply

    def slow(
        self, delay: float = 0.0, *, prompts: Mapping[str, float] | None = None, **per_task: float
    ) -> None:
        """Each chat reply after `delay` seconds, or after its task's own, or (`prompts`)
        after the longest delay of the texts its prompt holds (one resident's calls slow)."""
        self.delay, self.delays = delay, dict(per_task)
        self.prompt_delays = dict(prompts or {})

    def reset(self) -> None:
        """Forget the requests; no delay, no failing embeddings (between two tests)."""
        with self._lock:
            self.requests.clear()
        self.slow(0)
        self.embedding_errors = 0

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def chat_in_flight_from(self, client: str) -> list[tuple[str, str]]:
        """(task, prompt) of the chat requests from the address `client` that wait for
        their answers."""
        with self._lock:
            mine = [r for r in self.chat_requests() if r["client"] == client]
            return [(task_of(r["body"]), prompt_of(r["body"])) for r in mine if not r["answered"]]

    def asked(self) -> list[tuple[str, str]]:
        """(task, prompt) of each chat request, in order."""
        return [(task_of(r["body"]), prompt_of(r["body"])) for r in self.chat_requests()]

    def embedding_settings(self) -> dict[str, str]:
        return {
            "SMALLVILLE_EMBEDDING_BACKEND": "openai",
            "SMALLVILLE_EMBEDDING_BASE_URL": self.base_url,
            "SMALLVILLE_EMBEDDING_MODEL": "fake-embedding",
        }

    def llm_settings(self, model: str = "fake-model") -> dict[str, str]:
        return {
            "SMALLVILLE_LLM_BACKEND": "openai",
            "SMALLVILLE_LLM_BASE_URL": self.base_url,
            "SMALLVILLE_LLM_API_KEY": "test-key",
            "SMALLVILLE_LLM_MODEL": model,
        }

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            count = len(self.requests)
        prompt = prompt_of(body) if self.prompt_delays else ""
        held = [wait for text, wait in self.prompt_delays.items() if text in prompt]
        time.sleep(max(held) if held else self.delays.get(task_of(body), self.delay))
        try:
            reply = self.answerer(body)
        except Exception as exc:  # a prompt the rules cannot read: a failed call
            return 500, _error(f"{type(exc).__name__}: {exc}", "server_error"), {}
        time.sleep(reply.delay)
        if reply.status != 200:
            message = reply.content or f"scripted {reply.status}"
            return reply.status, _error(message, "scripted"), reply.headers
        completion = chat_completion(reply.content, body["model"], f"chatcmpl-{count}", reply.usage)
        return 200, completion, reply.headers

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        with self._lock:
            failing = self.embedding_errors > 0 and all(
                text.startswith(self.embedding_errors_for) for text in texts
            )
            self.embedding_errors -= int(failing)
        if failing:
            return 500, _error("scripted 500", "scripted")
        dims = body.get("dimensions") or self.embedding_dimensions
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dims)}
            for i, text in enumerate(texts)
        ]
        # Out of order, as the API allows: clients must sort by index.
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return 200, {"object": "list", "data": data[::-1], "model": body["model"], "usage": usage}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if fake.models is not None and self.path.endswith("/models"):
                    self._send(200, {"object": "list", "data": fake.models})
                else:
                    self._send(404, _error("not found", "scripted"))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    headers = {key.lower(): value for key, value in self.headers.items()}
                    request = {"path": self.path, "body": body, "headers": headers}
                    request |= {"client": self.client_address[0], "answered": False}
                    fake.requests.append(request)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if self.path.endswith("/embeddings"):
                        self._send(*fake._embeddings(body))
                    elif self.path.endswith("/chat/completions"):
                        self._send(*fake._chat(body))
                    else:  # no tokenizer endpoint, as OpenAI's own API
                        self._send(404, _error("not found", "scripted"))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left
                finally:
                    with fake._lock:
                        fake.in_flight -= 1
                        request["answered"] = True

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}
