"""An OpenAI-compatible server for the real `openai` clients (in this process or a worker's).

Chat completions answer the reflection tasks by rule, from the prompt alone, so two runs
get the same replies: three fixed questions; insights that cite statements 1 and 2 (as
far as there are any) and, in the first insight of each answer, statement n + 1, which
was not shown. Embeddings are deterministic vectors of the text's hash, 384 wide: fast,
and the same text (query or passage) gets the same vector.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.llm.fake_openai import chat_completion, fake_vector, send_json

DIMENSIONS = 384
QUESTIONS = [
    "What does {agent} care about?",
    "Who does {agent} spend time with?",
    "What is {agent} working on?",
]
_LINE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def statements_shown(prompt: str) -> dict[int, str]:
    """The numbered statements of a prompt: number -> text."""
    return {
        int(m.group(1)): m.string[m.end() : m.string.find("\n", m.end())]
        for m in _LINE.finditer(prompt)
    }


def insights_for(prompt: str) -> dict[str, Any]:
    shown = len(statements_shown(prompt))
    question = re.search(r'recalled for the question "(.*)":', prompt)
    topic = question.group(1) if question else "?"
    cited = [n for n in (1, 2) if n <= shown]
    return {
        "insights": [
            {
                "insight": f"Insight {i} on {topic}",
                "because": cited + ([shown + 1] if i == 1 else []),
                "importance": 5,
            }
            for i in range(1, 4)
        ]
    }


class FakeModel:
    def __init__(self, delay: float = 0.0, fail_first: int = 0) -> None:
        self.delay = delay
        self.fail_first = fail_first  # answer this many requests with HTTP 500 first
        self.prompts: list[tuple[str, str]] = []  # (task, prompt)
        self.priorities: list[tuple[str, Any]] = []  # (task, the request's `priority`)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, str]:
        prompt = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
        task = body.get("response_format", {}).get("json_schema", {}).get("name", "")
        with self._lock:
            self.prompts.append((task, prompt))
            self.priorities.append((task, body.get("priority")))
            if self.fail_first > 0:
                self.fail_first -= 1
                return 500, ""
        if task == "reflection_questions":
            agent = re.search(r"memory of (.*):", prompt)
            name = agent.group(1) if agent else "?"
            return 200, json.dumps({"questions": [q.format(agent=name) for q in QUESTIONS]})
        if task == "reflection_insights":
            return 200, json.dumps(insights_for(prompt))
        return 200, json.dumps({"importance": 4})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/embeddings"):
                    self._embeddings(body)
                    return
                time.sleep(fake.delay)
                status, content = fake.answer(body)
                payload = chat_completion(content, body["model"])
                if status != 200:
                    payload = {"error": {"message": "scripted failure", "type": "server_error"}}
                send_json(self, status, payload)

            def _embeddings(self, body: dict[str, Any]) -> None:
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(text, DIMENSIONS)}
                    for i, text in enumerate(texts)
                ]
                send_json(self, 200, {"object": "list", "data": data, "model": body["model"]})

        return Handler
