"""Reflection: `python -m bench reflection [--requests N] [--day]` prints one JSON object.

Evidence trees. A resident gets 120 observations and five levels of reflections above them
(six per level, through `memories_create`, so the projection computes links and depths),
in two shapes: "typical", each reflection citing 2 reflections of the level below and 3
observations (the depth-5 root's tree has 156 nodes), and "heavy", 3 reflections and 2
observations (606 nodes). Measured: `GET .../memories/{n}/evidence/` for the depth-5
root through Django's test client with token authentication (middleware, routing, view,
selector, serializer, JSON), p50/p95/max over N requests after a warm-up; the same with
the view's serializer swapped for `evidence_tree_data` (one MemorySerializer for the
tree, each memory serialized once: what the why endpoint uses); and the selector alone.
The target is p95 < 20 ms. Also `POST .../why/` (k=5) on that resident.

With `--day`, also a run of `--base` (default the 25 residents) for `--steps` (one sim
day) in one process with the paper's cognition and the offline backend, and its
`reflection_stats`: reflections per resident per sim day (the paper saw two or three)
and the deepest tree. That run is long (the cognition bench covers it too).

A database of its own (`smallville_bench_reflection`, kept between runs, so the
embeddings computed once are reused); the simulations it makes are deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from itertools import cycle
from typing import Any
from unittest.mock import patch

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token

from agents.reflection.selectors import reflection_stats
from agents.services import simulation_create_from_base
from api.memories import views as memory_views
from api.memories.serializers import evidence_tree_data
from bench.machine import stamp
from memories.models import Memory, MemoryKind
from memories.selectors import memory_evidence_tree
from memories.services import MemoryDraft, memories_create
from runtime.engine import simulation_run_inline
from world.models import Simulation

DATABASE = "smallville_bench_reflection"
N3 = "base_the_ville_isabella_maria_klaus"
LEVELS = 5
PER_LEVEL = 6
OBSERVATIONS = 120
SHAPES = {"typical": (2, 3), "heavy": (3, 2)}  # (reflections, observations) cited
WHO = ["Isabella Rodriguez", "Maria Lopez", "Sam Moore", "Tom Moreno", "Carmen Ortiz"]
DOING = [
    "brewing coffee",
    "painting a landscape",
    "talking about the election",
    "reading about gentrification",
    "studying for an exam",
    "planning a party",
]
WHERE = ["Hobbs Cafe", "the library", "the park", "the supply store"]


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench reflection", description=__doc__)
    parser.add_argument("--requests", type=int, default=300, help="timed requests per shape")
    parser.add_argument("--day", action="store_true", help="also run a sim day (slow)")
    parser.add_argument("--base", default="base_the_ville_n25")
    parser.add_argument("--steps", type=int, default=8640, help="8640 steps of 10 s: one day")
    return parser.parse_args(argv)


def chain(simulation: Simulation, agent: str, cited_reflections: int, cited_obs: int) -> Memory:
    """Observations, then LEVELS levels of reflections citing the level below; the root."""
    texts = [f"{w} is {d} at {p}" for w in WHO for d in DOING for p in WHERE][:OBSERVATIONS]
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=agent, kind=MemoryKind.OBSERVATION, description=t, importance=4)
            for t in texts
        ],
    )
    mine = Memory.objects.filter(simulation=simulation, agent__name=agent)
    observations = cycle(
        mine.filter(kind=MemoryKind.OBSERVATION).order_by("number").values_list("number", flat=True)
    )
    below: list[int] = []
    for level in range(1, LEVELS + 1):
        drafts = []
        for i in range(PER_LEVEL):
            reflections = [
                below[(i + j) % len(below)] for j in range(cited_reflections if below else 0)
            ]
            count = cited_obs if below else cited_reflections + cited_obs
            evidence = (*reflections, *(next(observations) for _ in range(count)))
            drafts.append(
                MemoryDraft(
                    agent=agent,
                    kind=MemoryKind.REFLECTION,
                    description=f"{agent} sees a pattern {i} at level {level} of the town's life",
                    importance=6,
                    evidence=evidence,
                )
            )
        memories_create(simulation=simulation, drafts=drafts)
        below = list(
            mine.filter(kind=MemoryKind.REFLECTION, depth=level).values_list("number", flat=True)
        )
    return mine.defer("embedding").get(number=max(below))


class _OneSerializer:
    """The evidence view's serializer swapped for `evidence_tree_data` (what the why
    endpoint uses): the change proposed for api/memories/views.py."""

    def __init__(self, node: Any) -> None:
        self.data = evidence_tree_data(node)


def _queries(call: Any) -> int:
    """SQL statements a call runs."""
    count = 0

    def counting(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal count
        count += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(counting):
        call()
    return count


def _nodes(node: Any) -> int:
    return 1 + sum(_nodes(child) for child in node["evidence"])


def _numbers(node: Any) -> set[int]:
    return {node["memory"]["number"]}.union(*(_numbers(child) for child in node["evidence"]))


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def timed(call: Any, n: int, warmup: int = 20) -> list[float]:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def evidence_bench(client: Client, simulation: Simulation, n: int) -> dict[str, Any]:
    # A small request of the same API, to show what the machine's load costs any request.
    detail = f"/api/simulations/{simulation.pk}/"
    report: dict[str, Any] = {
        "baseline_simulation_detail": _ms(timed(lambda: client.get(detail), n)),
    }
    agents = ["Klaus Mueller", "Maria Lopez"]
    for (shape, (refl, obs)), agent in zip(SHAPES.items(), agents, strict=True):
        root = chain(simulation, agent, refl, obs)
        url = f"/api/simulations/{simulation.pk}/residents/{agent}/memories/{root.number}/evidence/"
        response = client.get(url)
        assert response.status_code == 200, response.content
        queries = _queries(lambda url=url: client.get(url))

        def request(url: str = url) -> None:
            assert client.get(url).status_code == 200

        def selector(root: Memory = root) -> None:
            memory_evidence_tree(memory=root)

        def proposed(url: str = url) -> None:
            with patch.object(memory_views, "EvidenceNodeSerializer", _OneSerializer):
                assert client.get(url).status_code == 200

        with patch.object(memory_views, "EvidenceNodeSerializer", _OneSerializer):
            assert client.get(url).json() == response.json()

        report[shape] = {
            "cites": {"reflections": refl, "observations": obs},
            "depth": root.depth,
            "tree_nodes": _nodes(response.json()),
            "distinct_memories": len(_numbers(response.json())),
            "response_kb": round(len(response.content) / 1024, 1),
            "queries_per_request": queries,
            "api": _ms(timed(request, n)),
            "api_with_one_serializer": _ms(timed(proposed, n)),
            "selector_only": _ms(timed(selector, n)),
        }
        why_url = f"/api/simulations/{simulation.pk}/residents/{agent}/why/"
        body = {"statement": f"{agent} sees a pattern in the town's life", "k": 5}

        def why(url: str = why_url, body: dict[str, Any] = body) -> None:
            assert client.post(url, body, content_type="application/json").status_code == 200

        report[shape]["why_k5"] = _ms(timed(why, max(20, n // 10), warmup=3))
    report["target"] = "p95 < 20 ms for the typical depth-5 tree through the API"
    return report


def day_bench(owner: User, base: str, steps: int) -> dict[str, Any]:
    simulation = simulation_create_from_base(
        owner=owner, base=base, seed=1, config={"cognition": "paper"}
    )
    started = time.perf_counter()
    simulation = simulation_run_inline(simulation=simulation, steps=steps)
    report = {
        "base": base,
        "steps": steps,
        "seconds": round(time.perf_counter() - started, 1),
        "status": simulation.status,
        **reflection_stats(simulation),
    }
    simulation.delete()
    return report


def main(argv: list[str] | None = None) -> None:
    args = _arguments(argv)
    connection.settings_dict["TEST"]["NAME"] = DATABASE
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=True)
    owner, _ = User.objects.get_or_create(username="bench")
    token, _ = Token.objects.get_or_create(user=owner)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    simulation = simulation_create_from_base(owner=owner, base=N3, seed=1)
    try:
        report: dict[str, Any] = {
            **stamp(),
            "database": DATABASE,
            "embedding_backend": settings.SMALLVILLE_EMBEDDING_BACKEND,
            "requests": args.requests,
            "evidence_tree": evidence_bench(client, simulation, args.requests),
        }
    finally:
        simulation.delete()
    if args.day:
        report["day"] = day_bench(owner, args.base, args.steps)
    print(json.dumps(report, indent=2, default=str))
