"""What `manage.py demo` prints: conversations under their own pair, the viewer's URL where
the server listens, every model call of a run on a model, and whose words they are."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.test.utils import override_settings

from agents.events import agent_acting, agent_perceived, conversation_held
from agents.services import simulation_create_from_base
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from runtime.controls.stepping_in import newcomer_create
from runtime.management.commands.demo import Command
from tests.factories import N3
from tests.runtime.workers import test_database_url as database_url
from world.eventlog import EventDraft, events_append
from world.models import Simulation

PAIRS = [("Ada Quillfeather", "Bo Fenwright"), ("Cyra Marlowe", "Dov Ortolan")]


def _command() -> tuple[Command, StringIO]:
    out = StringIO()
    return Command(stdout=out), out


def _talking_in_one_step(owner: User) -> Simulation:
    """Two pairs of made-up newcomers, each pair talking, both in step 0."""
    simulation = simulation_create_from_base(owner=owner, base=N3, seed=1)
    for name in (n for pair in PAIRS for n in pair):
        newcomer_create(simulation=simulation, name=name, tile=_free_tile(simulation))
    drafts = []
    for a, b in PAIRS:
        for speaker, partner in ((a, b), (b, a)):
            drafts.append(
                agent_acting(
                    agent=speaker,
                    action=f"chatting with {partner}",
                    emoji="💬",
                    address="",
                    spo=(),
                    start_step=0,
                    end_step=5,
                    chatting_with=partner,
                )
            )
        drafts.append(
            conversation_held(
                agent=a,
                participants=[a, b],
                lines=[{"speaker": a, "text": "Lovely weather."}, {"speaker": b, "text": "It is."}],
                summary=f"{a} and {b} agree about the weather",
                address="",
            )
        )
    events_append(simulation=simulation, drafts=drafts, step=0)
    return simulation


def _free_tile(simulation: Simulation) -> tuple[int, int]:
    agent = simulation.agents.order_by("name").first()
    assert agent is not None
    return (agent.tile_x, agent.tile_y)


@pytest.mark.django_db
def test_two_pairs_talking_in_one_step_print_under_their_own_pair(user: User) -> None:
    simulation = _talking_in_one_step(user)
    assert simulation.conversations.filter(step=0).count() == 2
    command, out = _command()
    command._show_day(simulation)
    lines = out.getvalue().splitlines()
    for a, b in PAIRS:
        summary = next(i for i, line in enumerate(lines) if f"{a} and {b} agree" in line)
        speaker = lines[summary - 1]
        assert a in speaker or b in speaker, (speaker, lines[summary])
        assert "chatting with" in speaker


@pytest.mark.django_db
def test_the_timeline_shows_a_new_action_in_the_same_room_and_says_what_it_counts(
    user: User,
) -> None:
    simulation = simulation_create_from_base(owner=user, base=N3, seed=1)
    name = "Ysolde Brannock"
    newcomer_create(simulation=simulation, name=name, tile=_free_tile(simulation))
    room = Simulation.objects.get(pk=simulation.pk).agents.get(name=name).living_area or ""
    ours = simulation.agents.exclude(name=name).order_by("name").first()
    assert ours is not None

    def acting(action: str, emoji: str, start: int, end: int) -> EventDraft:
        return agent_acting(
            agent=name,
            action=action,
            emoji=emoji,
            address=room,
            spo=(),
            start_step=start,
            end_step=end,
        )

    steps = [
        [
            acting("oiling the loom", "🧵", 0, 1),
            agent_perceived(agent=name, observations=["the loom is idle"]),
        ],
        [
            acting("oiling the loom", "🧵", 1, 2),
            agent_perceived(agent=name, observations=[f"{ours.name} is idle"]),
        ],
        [acting("weaving a blue shawl", "🧶", 2, 9)],
    ]
    for step, drafts in enumerate(steps):
        events_append(simulation=simulation, drafts=drafts, step=step)
    command, out = _command()
    command._show_day(simulation)
    text = out.getvalue()
    mine = [line for line in text.splitlines() if name in line]
    assert sum("oiling the loom" in line for line in mine) == 1
    assert any("weaving a blue shawl" in line for line in mine)
    assert "2 perceptions (1 of other residents, shown above; 1 of objects only)" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("bind", "url"),
    [
        ("", "http://127.0.0.1:8000/"),
        ("127.0.0.1:9123", "http://127.0.0.1:9123/"),
        ("0.0.0.0:8181", "http://127.0.0.1:8181/"),
        ("viewer.example.test:80", "http://viewer.example.test:80/"),
    ],
)
def test_the_viewer_url_follows_smallville_web_bind(
    user: User, monkeypatch: pytest.MonkeyPatch, bind: str, url: str
) -> None:
    simulation = simulation_create_from_base(owner=user, base=N3, seed=1)
    monkeypatch.setenv("SMALLVILLE_WEB_BIND", bind)
    command, out = _command()
    command._show_viewer(simulation)
    assert f"{url}simulations/{simulation.pk}/" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_demo_on_a_model_prints_every_call_and_says_its_words_are_a_floor(
    user: User, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model server whose answers take random times, two worker threads: calls end out of
    their numbers' order, and each is printed once."""
    command, out = _command()
    options = {"base": N3, "seed": 2, "steps": 8, "start": "07:30", "cognition": "paper"}
    with PolicyServer(latency="lognormal:0.2:0.6", slots=8, seed=5) as server:
        env = {**server.env(), "DATABASE_URL": database_url()}
        with override_settings(**server.settings()):
            command._demo(options, worker_env=env)
    simulation = Simulation.objects.get(pk=int(re.findall(r"Simulation #(\d+)", out.getvalue())[0]))
    calls = ModelCall.objects.filter(simulation=simulation)
    printed = [int(pk) for pk in re.findall(r"call (\d+): ", out.getvalue())]
    assert sorted(printed) == sorted(calls.values_list("pk", flat=True))
    ended = list(calls.order_by("finished_at", "id").values_list("pk", flat=True))
    assert ended != sorted(ended), "no call ended after a later-numbered one: nothing tested"
    text = " ".join(out.getvalue().split())
    assert "a floor, not what a capable model would do" in text
    assert "fell back to the offline policy's rules" in text


@pytest.mark.django_db
def test_offline_output_says_it_comes_from_rules_not_a_model(user: User) -> None:
    simulation = simulation_create_from_base(owner=user, base=N3, seed=1)
    command, out = _command()
    command._model = ""
    command._show_source(simulation)
    assert "deterministic rules standing in for a model, not a model" in out.getvalue()
