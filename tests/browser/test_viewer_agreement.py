"""The clock, the map, the panels and the conversation list show the same step: sampled
while a real worker runs the simulation and while the log grows under a following page
(made-up steps with conversations), then in replay at several steps, each checked against
the log."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from agents.events import AGENT_CREATED, AGENT_MOVED, agent_acting, conversation_held
from agents.models import Conversation
from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, Login, _open, _scrub, _simulation
from world.eventlog import EventDraft, events_append
from world.events import SIMULATION_STEPPED
from world.models import Event, Simulation

pytestmark = pytest.mark.django_db(transaction=True)

TALKS = 12  # the conversations the town panel lists
ACTION_KINDS = ("agent.acting", "agent.headed", "agent.arrived")

# Everything the page shows that names a step, read in one go (the page does not change
# between its statements).
SAMPLE = """() => {
  const v = window.smallvilleViewer;
  const text = (id) => document.getElementById(id).textContent;
  const action = document.getElementById("resident-action");
  const talks = document.getElementById("talks");
  return {
    step: v.shownStep,
    mode: document.getElementById("viewer").dataset.mode,
    clock: text("clock"),
    slider: Number(document.getElementById("slider").value),
    label: text("slider-label"),
    names: v.residents.map((r) => r.name),
    drawn: v.town.residents.map((r) => (r.present ? [r.x, r.y] : null)),
    now: [...document.querySelectorAll("#conversations li")].map((li) => li.textContent),
    talks: [...talks.querySelectorAll("a")].map((a) => [Number(a.dataset.step), a.textContent]),
    talksStep: Number(talks.dataset.step),
    action: action ? action.textContent : null,
    actionStep: action ? Number(action.dataset.step) : null,
  };
}"""


def _log_at(simulation: Simulation, step: int) -> dict[str, Any]:
    """Each resident's tile, action, emoji and partner at `step`, folded from the log here."""
    tiles: dict[str, list[int]] = {}
    actions: dict[str, str] = {}
    emojis: dict[str, str] = {}
    partners: dict[str, str] = {}
    kinds = [AGENT_CREATED, AGENT_MOVED, *ACTION_KINDS]
    events = Event.objects.filter(simulation=simulation, step__lte=step, kind__in=kinds)
    for agent, kind, payload in events.order_by("seq").values_list("agent", "kind", "payload"):
        if kind in (AGENT_CREATED, AGENT_MOVED):
            tiles[agent] = payload["tile"]
            continue
        actions[agent] = payload.get("action") or ""
        if kind == "agent.acting":
            emojis[agent] = payload.get("emoji") or ""
            partners[agent] = payload.get("chatting_with") or ""
    return {"tiles": tiles, "actions": actions, "emojis": emojis, "partners": partners}


def _clock(simulation: Simulation, step: int) -> str:
    """The sim time of `step` as the page's clock writes it (en-GB, UTC)."""
    when = simulation.start_time + timedelta(seconds=step * simulation.sec_per_step)
    return f"{when:%a}, {when.day} {when:%b %Y}, {when:%H:%M:%S}"


def _agrees(simulation: Simulation, seen: dict[str, Any], resident: str) -> None:
    """Every part of the page shows the log at the page's step."""
    step = seen["step"]
    log = _log_at(simulation, step)
    names = seen["names"]
    where = f"step {step} ({seen['mode']})"
    assert seen["slider"] == step and seen["label"].startswith(f"step {step} "), where
    assert seen["clock"] == _clock(simulation, step), where
    drawn = {n: p for n, p in zip(names, seen["drawn"], strict=True) if p is not None}
    assert drawn == log["tiles"], where
    # The resident's panel: its action at the step (emoji first).
    expected = f"{log['emojis'].get(resident, '')} {log['actions'].get(resident) or 'idle'}"
    assert seen["actionStep"] == step and seen["action"] == expected, where
    # The town's panel: the pairs talking at the step, and the conversations held up to it.
    partner = {n: names.index(p) for n, p in log["partners"].items() if p in names}
    pairs = [
        f"{n} ↔ {names[p]}"
        for i, n in enumerate(names)
        if (p := partner.get(n, -1)) >= 0 and (p > i or partner.get(names[p], -1) != i)
    ]
    assert [t for t in seen["now"] if t != "nobody is talking"] == pairs, where
    held = Conversation.objects.filter(simulation=simulation, step__lte=step)
    latest = list(held.order_by("-number")[:TALKS])
    assert seen["talksStep"] == step, where
    assert [(s, t.split(" ", 1)[1]) for s, t in seen["talks"]] == [
        (c.step, " ↔ ".join(c.participants)) for c in latest
    ], where


def _read(page: Page, step: int) -> dict[str, Any]:
    """The page once its panels have read `step` (their lists come by request)."""
    for _ in range(100):
        seen: dict[str, Any] = page.evaluate(SAMPLE)
        if seen["talksStep"] == step and seen["actionStep"] == step:
            return seen
        page.wait_for_timeout(100)
    raise AssertionError(f"the panels never showed step {step}: {seen}")


def _made_up_step(simulation: Simulation, step: int, names: list[str]) -> None:
    """A step of made-up life: the first two walk a tile, and every fourth step they hold
    a conversation (talking meanwhile), the third alone."""
    a, b, _ = names
    drafts: list[EventDraft] = []
    for name in (a, b):
        agent = simulation.agents.get(name=name)
        tile = [agent.tile_x + (1 if step % 2 else -1), agent.tile_y]
        drafts.append(EventDraft(kind=AGENT_MOVED, agent=name, payload={"tile": tile}))
    if step % 4 == 0:
        drafts += [
            agent_acting(agent=me, action=f"chatting with {you}", emoji="💬", address="",
                         spo=(), start_step=step, end_step=step + 2, chatting_with=you)
            for me, you in ((a, b), (b, a))
        ]  # fmt: skip
        drafts.append(
            conversation_held(
                agent=a,
                participants=[a, b],
                lines=[{"speaker": a, "text": f"Line at step {step}."}],
                summary=f"a talk at step {step}",
                address="",
            )
        )
    elif step % 4 == 2:
        drafts += [
            agent_acting(agent=name, action=f"walking on at step {step}", emoji="🚶",
                         address="", spo=(), start_step=step, end_step=step + 2)
            for name in (a, b)
        ]  # fmt: skip
    drafts.append(EventDraft(kind=SIMULATION_STEPPED, payload={"step": step}))
    events_append(simulation=simulation, drafts=drafts, step=step)
    Simulation.objects.filter(pk=simulation.pk).update(step=step)


def test_clock_map_panels_and_lists_agree_live_and_in_replay(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    simulation = _simulation(user)
    names = sorted(simulation.agents.values_list("name", flat=True))
    resident = names[0]
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    page.select_option("#resident-pick", resident)
    page.wait_for_function(
        "() => { const a = document.getElementById('resident-action');"
        " const t = document.getElementById('talks');"
        " return a && +a.dataset.step === 0 && t.dataset.step === '0'; }"
    )
    samples: list[dict[str, Any]] = []
    # A live run on a real worker: sampled as it goes, each sample against the log.
    run_steps = 30
    with live_server.worker():
        page.fill("#run-steps", str(run_steps))
        page.click("#run")
        for _ in range(600):
            samples.append(page.evaluate(SAMPLE))
            if samples[-1]["step"] == run_steps:
                break
            page.wait_for_timeout(100)
    simulation.refresh_from_db()
    assert simulation.step == run_steps and samples[-1]["step"] == run_steps
    # Then the log grows under the following page: conversations held and talking pairs.
    for step in range(run_steps + 1, run_steps + 17):
        _made_up_step(simulation, step, names)
        page.wait_for_function(f"window.smallvilleViewer.shownStep === {step}")
        samples.append(page.evaluate(SAMPLE))
    live = [s for s in samples if s["mode"] == "live"]
    assert len({s["step"] for s in live}) >= 10, [s["step"] for s in live]
    for seen in live:
        _agrees(simulation, seen, resident)
    assert samples[-1]["talks"], "the made-up conversations are listed"
    assert any(s["now"] == [f"{names[0]} ↔ {names[1]}"] for s in live), "nobody talked"

    # In replay, at several steps: once the panels have read the step, all agree.
    last = run_steps + 16
    for step in (0, 9, run_steps, run_steps + 4, run_steps + 7, last - 1, 1):
        _scrub(page, step)
        seen = _read(page, step)
        assert seen["mode"] == "replay"
        _agrees(simulation, seen, resident)
    page.click("#live")
    _agrees(simulation, _read(page, last), resident)
