"""An OpenAI-compatible chat server that answers every call after a fixed delay.

For benchmarks of wall time against a slow model: it recognises each Smallville prompt
task by the JSON shape its prompt asks for and answers with a valid, dull reply built
from what the prompt lists (places, objects, numbered statements). Not a model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _numbered(prompt: str) -> list[int]:
    return [int(m) for m in re.findall(r"^(\d+)\. ", prompt, re.MULTILINE)]


def _home(prompt: str) -> tuple[str, str]:
    match = re.search(r"lives in [^:\n]+:([^:\n]+):([^.\n]+)\.", prompt)
    return (match[1], match[2]) if match else ("", "")


def answer(prompt: str) -> dict[str, Any]:
    """A valid reply for the task whose prompt this is."""
    if '{"importance": [' in prompt:
        return {"importance": [4] * max(1, len(_numbered(prompt)))}
    if '{"importance": <' in prompt:
        return {"importance": 4}
    if '{"summary": "<the summary>"}' in prompt:
        return {"summary": "A resident of the Ville going about the day."}
    if '{"items": [' in prompt:
        items = [("sleeping", "00:00", 420), ("morning routine", "07:00", 60)]
        items += [("working", "08:00", 540), ("dinner", "17:00", 60), ("relaxing", "18:00", 300)]
        items += [("sleeping", "23:00", 60)]
        return {
            "items": [{"description": d, "start": s, "duration_minutes": m} for d, s, m in items]
        }
    if '{"blocks": [' in prompt:
        sector, arena = _home(prompt)
        blocks = [{"description": "sleeping", "start": "00:00", "duration_minutes": 420}]
        blocks += [
            {"description": "going about the day", "start": f"{h:02d}:00", "duration_minutes": 60}
            for h in range(7, 23)
        ]
        blocks += [{"description": "sleeping", "start": "23:00", "duration_minutes": 60}]
        return {"blocks": [{**b, "sector": sector, "arena": arena} for b in blocks]}
    if '{"actions": [' in prompt:
        objects = re.search(r"has these objects: (.*)", prompt)
        first = objects[1].split(",")[0].strip() if objects else "desk"
        total = int(re.search(r"for (\d+) minutes", prompt)[1])  # type: ignore[index]
        actions = []
        while total > 0:
            minutes = min(15, total)
            actions.append(
                {
                    "description": "working",
                    "duration_minutes": minutes,
                    "object": first,
                    "emoji": "💼",
                    "triple": ["resident", "works at", first],
                    "object_state": "in use",
                }
            )
            total -= minutes
        return {"actions": actions}
    if '{"reaction": ' in prompt:
        talk = hash(prompt) % 3 == 0
        return {"reaction": "talk" if talk else "continue", "reason": "a dull model"}
    if '{"line": ' in prompt:
        lines = prompt.split("The conversation so far:")[-1].count(": ")
        return {"line": "Nice to see you.", "end": lines >= 2}
    if '{"summary": "..."}' in prompt:
        return {"summary": "They chatted briefly."}
    if '{"respond": ' in prompt:
        return {"respond": False, "action": "", "emoji": "", "state_after": ""}
    if '"questions"' in prompt:
        return {"questions": ["What matters most?", "Who matters most?", "What is next?"]}
    if '"insights"' in prompt:
        cited = _numbered(prompt)[:2] or [1]
        return {"insights": [{"insight": "Life goes on.", "because": cited, "importance": 4}]}
    if '"answer"' in prompt:
        return {"answer": "I am doing fine."}
    return {}


class _Handler(BaseHTTPRequestHandler):
    delay = 0.3

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(self.delay)
        prompt = body["messages"][-1]["content"]
        content = json.dumps(answer(prompt))
        reply = {
            "id": "fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": len(prompt) // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": (len(prompt) + len(content)) // 4,
            },
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops connections when 25 agents call at once, and
    # a dropped connection is retried a second later: a second a real server never adds.
    request_queue_size = 256
    daemon_threads = True


class FakeModelServer:
    """`with FakeModelServer(delay=0.3) as url:` gives a base URL ending in /v1."""

    def __init__(self, delay: float = 0.3) -> None:
        handler = type("Handler", (_Handler,), {"delay": delay})
        self.server = _Server(("127.0.0.1", 0), handler)

    def __enter__(self) -> str:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
