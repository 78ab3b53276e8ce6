"""The policy server: the `openai` backend over real HTTP against `llm/policy_server.py`.

A three-resident day of the paper's cognition run through it is the same day as the
offline run with the same seed (the same events, the same calls in the same order); an
answer takes the configured latency; a request that does not name its task is refused;
the slots limit the answers worked on at once.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from agents.services import simulation_create_from_base
from agents.tasks.importance import IMPORTANCE
from llm.backends import TASK_FIELD
from llm.models import ModelCall
from llm.policy_server import Latency, PolicyServer
from llm.port import ModelRequestRejected, llm_run, llm_send_ahead
from llm.tasks import task_get
from runtime.engine import simulation_run_inline
from tests.agents.cognition.test_openai_flow import talk
from tests.factories import N3
from world.models import Event, Simulation

ISABELLA, MARIA = "Isabella Rodriguez", "Maria Lopez"
MORNING = datetime(2023, 2, 13, 7, 50, tzinfo=UTC)
STEPS = 60
INPUTS = {
    "agent_name": "Isabella Rodriguez",
    "agent_identity": "Name: Isabella Rodriguez\nAge: 34",
    "memory": "Isabella Rodriguez is planning a Valentine's Day party",
}


def _point_at(settings: Any, server: PolicyServer) -> None:
    for key, value in server.settings().items():
        setattr(settings, key, value)
    settings.SMALLVILLE_LLM_TIMEOUT = 30.0
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions


def _morning(user: User, name: str) -> Simulation:
    """Three residents from 07:50; Isabella tells Maria of her party, then the engine runs."""
    simulation = simulation_create_from_base(
        owner=user, base=N3, name=name, seed=7, start_time=MORNING, config={"cognition": "paper"}
    )
    talk(simulation, ISABELLA, MARIA)
    return simulation_run_inline(simulation=simulation, steps=STEPS)


def _events(simulation: Simulation) -> list[tuple[int, str, str, Any]]:
    rows = Event.objects.filter(simulation=simulation).order_by("seq")
    return [(e.step, e.kind, e.agent, e.payload) for e in rows.exclude(kind="simulation.created")]


SENT_AHEAD = ("importance_many", "decompose")  # calls a served run may make steps earlier


def _calls(simulation: Simulation) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ledger: who asked what, when, and the answer and its tokens, step by step (calls
    of a step that do not wait on each other are made at once: their order within the
    step is not the same, what they are is); and the calls a served run sends ahead in the
    background (importance ratings, the next hour's decomposition), without their step."""
    fields = ["agent_name", "task", "prompt", "output", "error", "fallback"]
    fields += ["attempts", "prompt_tokens", "completion_tokens"]
    calls = ModelCall.objects.filter(simulation=simulation).order_by("id")
    ahead = calls.filter(task__in=SENT_AHEAD)
    return (
        sorted(calls.exclude(task__in=SENT_AHEAD).values_list("step", *fields), key=repr),
        sorted(ahead.values_list(*fields), key=repr),
    )


@pytest.mark.django_db(transaction=True)
def test_a_morning_through_the_policy_server_is_the_offline_morning(
    user: User, settings: Any
) -> None:
    offline = _morning(user, "offline")
    with PolicyServer(latency="fixed:0", slots=8) as server:
        _point_at(settings, server)
        served = _morning(user, "served")
    assert served.step == offline.step == STEPS
    assert served.status == offline.status
    assert ModelCall.objects.filter(simulation=served).exclude(backend="openai").count() == 0
    offline_calls, served_calls = _calls(offline), _calls(served)
    tasks = {task for _, _, task, *_ in offline_calls[0]}
    assert {"day_plan", "converse_line", "conversation_takeaways"} <= tasks
    assert {"importance_many", "decompose"} <= {row[1] for row in offline_calls[1]}
    assert served_calls[0] == offline_calls[0]
    # Every rating and decomposition the offline run made, and those sent ahead for steps
    # after the run's last (the next run takes them) or whose inputs did not come to pass.
    served_ahead, offline_ahead = (
        Counter(map(repr, served_calls[1])),
        Counter(map(repr, offline_calls[1])),
    )
    assert offline_ahead - served_ahead == Counter()
    assert (served_ahead - offline_ahead).total() < offline_ahead.total()
    offline_events, served_events = _events(offline), _events(served)
    kinds = {kind for _, kind, _, _ in offline_events}
    assert {"agent.acting", "agent.day_planned", "conversation.held", "plan.revised"} <= kinds
    assert served_events == offline_events


@pytest.mark.django_db
def test_an_answer_takes_the_fixed_latency(settings: Any) -> None:
    with PolicyServer(latency="fixed:0.2", slots=1) as server:
        _point_at(settings, server)
        started = time.monotonic()
        output = llm_run(task=IMPORTANCE, inputs=INPUTS)
        took = time.monotonic() - started
    assert took >= 0.2
    seed = IMPORTANCE.seed(simulation_seed=0, inputs=INPUTS)
    assert output == IMPORTANCE.run_offline(seed=seed, inputs=INPUTS)
    call = ModelCall.objects.latest("id")
    assert call.latency_ms >= 200
    assert call.attempts == 1 and call.error == ""


@pytest.mark.django_db
def test_without_send_task_the_backend_sends_no_task_and_the_server_says_why(
    settings: Any,
) -> None:
    with PolicyServer(latency="fixed:0") as server:
        _point_at(settings, server)
        settings.SMALLVILLE_LLM_SEND_TASK = False  # requests as any server gets them
        with pytest.raises(ModelRequestRejected, match="SMALLVILLE_LLM_SEND_TASK"):
            llm_run(task=IMPORTANCE, inputs=INPUTS)
    call = ModelCall.objects.latest("id")
    # A 400 reads as "not this response format" first: down the ladder, then refused.
    assert call.attempt_log[-1]["outcome"] == "rejected"
    assert all("SMALLVILLE_LLM_SEND_TASK" in attempt["error"] for attempt in call.attempt_log)


# The server's threads answer by the stand-in, which embeds the memory rated (its vectors
# cached in the database): a test that runs first in its process reaches the database.
STAND_IN_EMBEDS = pytest.mark.django_db(transaction=True)


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _body(**field: Any) -> dict[str, Any]:
    seed = IMPORTANCE.seed(simulation_seed=0, inputs=INPUTS)
    return {
        "model": "smallville-policy",
        "messages": [{"role": "user", "content": IMPORTANCE.render(INPUTS)}],
        TASK_FIELD: {"task": "importance", "inputs": INPUTS, "seed": seed, **field},
    }


@STAND_IN_EMBEDS
def test_a_request_without_its_task_is_refused_with_a_400() -> None:
    with PolicyServer(latency="fixed:0") as server:
        url = f"{server.base_url}/chat/completions"
        plain = _body()
        del plain[TASK_FIELD]
        status, answer = _post(url, plain)
        assert status == 400
        assert "SMALLVILLE_LLM_SEND_TASK" in answer["error"]["message"]
        status, answer = _post(url, _body(task="no_such_task"))
        assert (status, answer["error"]["message"]) == (400, "unknown task 'no_such_task'")
        status, answer = _post(url, _body())
    assert status == 200
    content = answer["choices"][0]["message"]["content"]
    task = task_get("importance")
    expected = task.run_offline(seed=_body()[TASK_FIELD]["seed"], inputs=INPUTS)
    assert content == expected.model_dump_json()
    assert answer["usage"]["prompt_tokens"] > 0


@STAND_IN_EMBEDS
def test_the_slots_make_the_next_request_wait() -> None:
    with PolicyServer(latency="fixed:0.5", slots=2) as server:
        url = f"{server.base_url}/chat/completions"
        started = time.monotonic()

        def ask(_: int) -> float:
            status, _answer = _post(url, _body())
            assert status == 200
            return time.monotonic() - started

        with ThreadPoolExecutor(max_workers=3) as pool:
            finished = sorted(pool.map(ask, range(3)))
    assert finished[0] >= 0.5
    assert finished[2] >= 1.0  # two answers at a time: the third waited for a slot


@STAND_IN_EMBEDS
def test_a_freed_slot_goes_to_the_lowest_priority_number_first() -> None:
    """One slot, busy: a background request (priority 1) arrives, then a critical one
    (priority 0); the critical one is answered first, as vLLM's priority policy would."""
    with PolicyServer(latency="fixed:1", slots=1) as server:
        url = f"{server.base_url}/chat/completions"
        finished: list[str] = []

        def ask(name: str, priority: int) -> None:
            status, _answer = _post(url, {**_body(), "priority": priority})
            assert status == 200
            finished.append(name)

        with ThreadPoolExecutor(max_workers=3) as pool:
            for name, priority in [("busy", 0), ("background", 1), ("critical", 0)]:
                pool.submit(ask, name, priority)
                time.sleep(0.3)  # arrival order: busy holds the slot, then the two wait
        status, answer = _post(url, {**_body(), "priority": "high"})
    assert finished == ["busy", "critical", "background"]
    assert status == 400 and "priority must be an integer" in answer["error"]["message"]


def test_lognormal_latency_has_its_mean_and_tail_and_repeats_per_seed() -> None:
    import random

    latency = Latency.parse("lognormal:1:2.5")
    draws = sorted(latency.draw(random.Random(i)) for i in range(20_000))
    assert abs(sum(draws) / len(draws) - 1.0) < 0.05
    assert abs(draws[int(0.95 * len(draws))] - 2.5) < 0.15
    assert latency.draw(random.Random("a")) == latency.draw(random.Random("a"))
    for bad in ("fixed", "fixed:-1", "lognormal:2:1", "lognormal:1:10", "gamma:1"):
        with pytest.raises(ValueError, match="latency"):
            Latency.parse(bad)


def test_the_command_refuses_a_bad_latency() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="lognormal:MEAN:P95"):
        call_command("policy_server", "--port", "0", "--latency", "slow")


@pytest.mark.django_db(transaction=True)
def test_a_conversations_independent_calls_wait_together(user: User, settings: Any) -> None:
    """How each speaker stands with the other is asked once each, both at once; the
    summary and both speakers' takeaways are asked at once after the last line."""
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=7, start_time=MORNING, config={"cognition": "paper"}
    )
    with PolicyServer(latency="fixed:0.25") as server:
        _point_at(settings, server)
        talk(simulation, ISABELLA, MARIA)
    calls = ModelCall.objects.filter(simulation=simulation)
    assert calls.filter(task="converse_line").count() >= 2  # however many lines ...
    assert calls.filter(task="relationship").count() == 2  # ... each speaker asks once

    def at_once(tasks: list[str], count: int) -> None:
        spans = [
            (call.created_at, call.finished_at or call.created_at)
            for call in calls.filter(task__in=tasks)
        ]
        assert len(spans) == count
        assert max(start for start, _ in spans) < min(end for _, end in spans), spans

    at_once(["relationship"], 2)
    at_once(["conversation_summary", "conversation_takeaways"], 3)


@pytest.mark.django_db(transaction=True)
def test_a_call_sent_ahead_answers_the_same_call_later_and_no_other(
    user: User, settings: Any
) -> None:
    """`llm_send_ahead` makes the call in the background (priority 1, in the ledger once);
    `llm_run` with the same inputs takes its answer without waiting for the model again;
    other inputs are asked as usual. Offline nothing is sent."""
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=7, start_time=MORNING, config={"cognition": "paper"}
    )
    isabella = simulation.agents.get(name=ISABELLA)
    before_id = ModelCall.objects.order_by("-id").values_list("id", flat=True).first() or 0
    assert not llm_send_ahead(task=IMPORTANCE, inputs=INPUTS, agent=isabella, simulation=simulation)
    with PolicyServer(latency="fixed:0.5", slots=0) as server:
        _point_at(settings, server)
        assert llm_send_ahead(task=IMPORTANCE, inputs=INPUTS, agent=isabella, simulation=simulation)
        time.sleep(0.7)  # the answer is in by now
        started = time.monotonic()
        taken = llm_run(task=IMPORTANCE, inputs=INPUTS, agent=isabella)
        assert time.monotonic() - started < 0.3
        other = {**INPUTS, "memory": "Isabella Rodriguez is opening the cafe"}
        asked = llm_run(task=IMPORTANCE, inputs=other, agent=isabella)
    seed = IMPORTANCE.seed(simulation_seed=simulation.seed, inputs=INPUTS)
    assert taken == IMPORTANCE.run_offline(seed=seed, inputs=INPUTS)
    other_seed = IMPORTANCE.seed(simulation_seed=simulation.seed, inputs=other)
    assert asked == IMPORTANCE.run_offline(seed=other_seed, inputs=other)
    calls = ModelCall.objects.filter(simulation=simulation, pk__gt=before_id, backend="openai")
    made = list(calls.order_by("id").values_list("task", "priority"))
    # Once ahead, once asked; nothing for the answer taken.
    assert made == [(IMPORTANCE.name, 1), (IMPORTANCE.name, 0)]
