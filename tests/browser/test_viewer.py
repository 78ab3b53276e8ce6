"""The town viewer in a real browser: the Ville and its residents drawn, a resident moving
while a real worker runs the simulation, the replay slider, a resident's panel, and
another user's viewer a 404."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.events import (
    AGENT_CREATED,
    AGENT_MOVED,
    agent_acting,
    conversation_held,
    object_state,
)
from agents.services import simulation_create_from_base
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from runtime.engine import simulation_run_inline
from tests.browser.drawn import near, pixel, resident_rgb
from tests.browser.served import LiveServer
from tests.browser.traffic import Traffic
from tests.factories import N3
from tests.runtime.workers import wait_for
from world.eventlog import EventDraft, events_append
from world.events import SIMULATION_STEPPED
from world.models import Event, Simulation

PASSWORD = "alice-password-1"
Login = Callable[[Page, User, str], None]
Artifact = Callable[[Page, str], Path]

pytestmark = pytest.mark.django_db(transaction=True)


def _simulation(owner: User, cognition: str = "minimal", steps: int = 0) -> Simulation:
    simulation = simulation_create_from_base(
        owner=owner, base=N3, seed=3, config={"cognition": cognition}
    )
    if steps:
        simulation = simulation_run_inline(simulation=simulation, steps=steps)
    return simulation


def _open(page: Page, live_server: LiveServer, simulation: Simulation) -> None:
    page.goto(f"{live_server.url}/simulations/{simulation.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]")


def _drawn(page: Page) -> dict[str, Any]:
    """What the page draws now: each resident's tile and point on the canvas, the step."""
    return dict(
        page.evaluate(
            """() => {
              const v = window.smallvilleViewer;
              return {
                step: v.shownStep,
                names: v.residents.map((r) => r.name),
                tiles: Array.from(v.state.tiles),
                points: v.town.drawn,
                tile: v.town.tile,
              };
            }"""
        )
    )


def _settled(page: Page) -> dict[str, Any]:
    """What the page draws once the residents stopped gliding (smooth movement takes a
    few frames, more on a busy machine): a click or a pixel read then hits them."""
    drawn = _drawn(page)
    for _ in range(40):
        page.wait_for_timeout(250)
        again = _drawn(page)
        if again["points"] == drawn["points"]:
            return again
        drawn = again
    raise AssertionError("the residents never stopped moving on the page")


def _scrub(page: Page, step: int) -> None:
    """Drag the replay slider to `step`, as a user does, and wait until it is shown."""
    page.evaluate(
        "(step) => { const s = document.getElementById('slider'); s.value = String(step);"
        " s.dispatchEvent(new Event('input')); }",
        step,
    )
    page.wait_for_function(f"window.smallvilleViewer.shownStep === {step}")


def _tiles_at(simulation: Simulation, step: int) -> dict[str, list[int]]:
    """Each resident's tile at `step`, read from the log here (not through the replay)."""
    tiles: dict[str, list[int]] = {}
    events = Event.objects.filter(
        simulation=simulation, step__lte=step, kind__in=[AGENT_CREATED, AGENT_MOVED]
    ).order_by("seq")
    for agent, payload in events.values_list("agent", "payload"):
        tiles[agent] = payload["tile"]
    return tiles


def test_viewer_draws_the_ville_and_its_residents(
    live_server: LiveServer,
    page: Page,
    user: User,
    login: Login,
    artifact: Artifact,
    traffic: Traffic,
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)

    drawn = _drawn(page)
    assert sorted(drawn["names"]) == sorted(simulation.agents.values_list("name", flat=True))
    for i, name in enumerate(drawn["names"]):
        agent = simulation.agents.get(name=name)
        assert drawn["tiles"][2 * i : 2 * i + 2] == [agent.tile_x, agent.tile_y]
        # A resident is a figure in its own shirt where it stands.
        x, y = drawn["points"][i]
        assert near(pixel(page, x, y)[:3], resident_rgb(page, i)), name
    colours = {tuple(resident_rgb(page, i)) for i in range(len(drawn["names"]))}
    assert len(colours) == len(drawn["names"]), "two residents drawn alike"
    # The map from its layers: walls dark, a sector in its own colour.
    tile = drawn["tile"]
    town = simulation.town
    walls = [i for i, v in enumerate(town.collision) if v][::97][:40]
    dark = [
        pixel(page, (i % town.width + 0.5) * tile, (i // town.width + 0.5) * tile)[:3]
        for i in walls
    ]
    assert sum(rgb == [61, 66, 71] for rgb in dark) > len(dark) * 0.6, dark
    assert page.locator("#offline-note").is_visible()
    assert "rules, not from a language model" in page.inner_text("#offline-note")
    # Beside Run, the estimate for the steps in the box (no earlier run: the default table).
    page.wait_for_function("document.getElementById('estimate').textContent.includes('calls')")
    assert "tokens" in page.inner_text("#estimate")
    assert "default table" in (page.get_attribute("#estimate", "title") or "")
    assert traffic.offsite() == [], "something was loaded from outside the server"
    assert traffic.failed() == []
    assert any(url.endswith("/static/web/viewer/main.js") for url in traffic.static())
    artifact(page, "viewer-town")


def test_a_resident_moves_while_a_worker_runs_the_simulation(
    live_server: LiveServer,
    page: Page,
    user: User,
    login: Login,
    artifact: Artifact,
    traffic: Traffic,
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    before = _drawn(page)
    with live_server.worker():
        page.fill("#run-steps", "40")
        page.click("#run")
        page.wait_for_function("window.smallvilleViewer.shownStep >= 20", timeout=90_000)
        after = _drawn(page)
        assert after["tiles"] != before["tiles"], "nobody moved on the page"
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != "running", 90, "the run"
        )
    # What the page shows is the log's state at the step it shows.
    page.wait_for_function("window.smallvilleViewer.shownStep === 40", timeout=15_000)
    final = _drawn(page)
    log = _tiles_at(simulation, 40)
    assert {n: final["tiles"][2 * i : 2 * i + 2] for i, n in enumerate(final["names"])} == log
    assert page.locator("#feed li").count() > 0
    assert page.locator("#feed li[data-kind='agent.moved']").count() == 0
    # It followed the run through the live stream (docs/integration.md), not by paging.
    assert any(f"/api/simulations/{simulation.pk}/stream/?after=" in u for u in traffic.requests)
    artifact(page, "viewer-live-run")


def test_the_replay_slider_shows_an_earlier_steps_positions(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user, steps=90)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    assert _drawn(page)["step"] == 90
    at_10 = _tiles_at(simulation, 10)
    assert at_10 != _tiles_at(simulation, 90), "nobody moved: the test would show nothing"

    page.eval_on_selector(
        "#slider", "(s) => { s.value = '10'; s.dispatchEvent(new Event('input')); }"
    )
    page.wait_for_function("window.smallvilleViewer.shownStep === 10")
    drawn = _drawn(page)
    assert {n: drawn["tiles"][2 * i : 2 * i + 2] for i, n in enumerate(drawn["names"])} == at_10
    assert "replay" in page.inner_text("#slider-label")
    artifact(page, "viewer-replay-step-10")

    page.click("#live")
    page.wait_for_function("window.smallvilleViewer.shownStep === 90")


def test_a_click_opens_the_residents_panel_with_plan_and_memories(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user, cognition="paper", steps=3)
    isabella = simulation.agents.get(name="Isabella Rodriguez")
    cited = list(isabella.memories.order_by("number")[:2])
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=isabella.name,
                kind=MemoryKind.REFLECTION,
                description="Isabella cares about her cafe's regulars",
                importance=7,
                evidence=tuple(m.number for m in cited),
            )
        ],
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    drawn = _settled(page)
    i = drawn["names"].index("Isabella Rodriguez")
    x, y = drawn["points"][i]
    page.locator("#map").click(position={"x": x, "y": y})
    panel = page.locator("#resident-panel")
    panel.wait_for(state="visible")
    page.wait_for_selector("#resident-panel .memories li")
    assert panel.get_attribute("data-resident") == "Isabella Rodriguez"
    text = panel.inner_text()
    assert "Isabella Rodriguez" in text and "Today's plan" in text
    assert page.locator("#resident-panel .plan li").count() > 0
    assert page.locator("#resident-panel .plan li.current").count() > 0, "no current plan item"
    memory = isabella.memories.exclude(kind=MemoryKind.REFLECTION).order_by("-number").first()
    assert memory is not None and memory.description in text
    # Her reflection, with the memories it cites.
    reflection = page.locator("#resident-panel .reflections > li").first
    assert "Isabella cares about her cafe's regulars" in reflection.inner_text()
    evidence = reflection.locator(".evidence li").all_inner_texts()
    assert evidence == [f"#{m.number} {m.description}" for m in cited]
    artifact(page, "viewer-resident-panel")

    # The interview box: a question, and her answer (the offline backend's words).
    page.fill("#interview textarea[name=question]", "What are you planning this week?")
    page.click("#interview button[type=submit]")
    page.wait_for_selector("#interview-answer strong")
    interview = simulation.interviews.get()
    assert interview.question == "What are you planning this week?"
    assert interview.answer in page.inner_text("#interview-answer")


def test_the_town_panel_and_a_conversation_in_progress_drawn_as_a_link(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    talk = [("Isabella Rodriguez", "Maria Lopez"), ("Maria Lopez", "Isabella Rodriguez")]
    events_append(
        simulation=simulation,
        drafts=[
            agent_acting(
                agent=speaker,
                action=f"chatting with {partner}",
                emoji="💬",
                address="",
                spo=(),
                start_step=0,
                end_step=10,
                chatting_with=partner,
            )
            for speaker, partner in talk
        ]
        + [
            conversation_held(
                agent="Isabella Rodriguez",
                participants=["Isabella Rodriguez", "Maria Lopez"],
                lines=[
                    {"speaker": "Isabella Rodriguez", "text": "Come to my party on Friday!"},
                    {"speaker": "Maria Lopez", "text": "I would love to."},
                ],
                summary="Isabella invites Maria to her party",
                address="the Ville:Hobbs Cafe:cafe",
            ),
            object_state(address="the Ville:Hobbs Cafe:cafe:piano", state="being played"),
        ],
        step=0,
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    assert page.inner_text("#conversations") == "Isabella Rodriguez ↔ Maria Lopez"
    expect(page.locator("#objects")).to_have_text("cafe: piano being played")
    # The link: a red dash halfway between the two.
    drawn = _settled(page)
    a, b = (drawn["points"][drawn["names"].index(name)] for name, _ in talk)
    reds = 0
    for k in range(20):
        f = 0.3 + 0.02 * k
        red, green, blue, _ = pixel(page, a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)
        reds += red > 150 and green < 110 and blue < 110
    assert reds >= 5, reds
    artifact(page, "viewer-conversation-link")

    # Maria's panel has the conversation, line by line.
    page.locator("#map").click(position={"x": b[0], "y": b[1]})
    page.wait_for_selector("#resident-panel .conversation li")
    lines = page.locator("#resident-panel .conversation li").all_inner_texts()
    assert lines == [
        "Isabella Rodriguez: Come to my party on Friday!",
        "Maria Lopez: I would love to.",
    ]


def test_a_newcomer_appears_on_the_page(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    from runtime.controls.stepping_in import newcomer_create

    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    assert len(_drawn(page)["names"]) == 3
    newcomer_create(simulation=simulation, name="Ada Lovelace", tile=(72, 14))
    page.wait_for_function("window.smallvilleViewer.residents.length === 4")
    drawn = _drawn(page)
    i = drawn["names"].index("Ada Lovelace")
    assert drawn["tiles"][2 * i : 2 * i + 2] == [72, 14]
    artifact(page, "viewer-newcomer")


def test_a_resident_who_left_is_gone_from_the_map_from_its_leave_step(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    from runtime.controls.public import agent_leave

    simulation = _simulation(user, steps=10)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    i = _drawn(page)["names"].index("Maria Lopez")
    assert _drawn(page)["points"][i] is not None
    # She leaves while the page follows the run: gone from the map at once.
    agent_leave(simulation=simulation, agent=simulation.agents.get(name="Maria Lopez"))
    page.wait_for_function(f"window.smallvilleViewer.town.drawn[{i}] === null")
    simulation = simulation_run_inline(simulation=simulation, steps=10)
    page.wait_for_function("window.smallvilleViewer.shownStep === 20", timeout=30_000)
    drawn = _settled(page)
    assert drawn["points"][i] is None
    assert all(p is not None for k, p in enumerate(drawn["points"]) if k != i)
    artifact(page, "viewer-resident-left")

    def scrub(step: int) -> dict[str, Any]:
        _scrub(page, step)
        return _settled(page)

    # Replayed before her leave step she is there, where the log had her, in her shirt.
    earlier = scrub(9)
    assert earlier["tiles"][2 * i : 2 * i + 2] == _tiles_at(simulation, 9)["Maria Lopez"]
    x, y = earlier["points"][i]
    assert near(pixel(page, x, y)[:3], resident_rgb(page, i))
    # From it on, she is not, and a click where she stood opens nobody's panel.
    assert scrub(10)["points"][i] is None
    assert scrub(15)["points"][i] is None
    assert page.evaluate(f"window.smallvilleViewer.town.residentAt({x}, {y})") != i


def test_another_users_viewer_is_a_404(
    live_server: LiveServer,
    page: Page,
    user: User,
    other_user: User,
    login: Login,
    artifact: Artifact,
) -> None:
    simulation = _simulation(user)
    login(page, other_user, "bob-password-1")
    response = page.goto(f"{live_server.url}/simulations/{simulation.pk}/")
    assert response is not None and response.status == 404
    artifact(page, "viewer-other-user-404")
    # Without a session, the login page first.
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/simulations/{simulation.pk}/")
    assert "/accounts/login/" in page.url


def test_five_hundred_residents_are_drawn_walking(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    from bench.engine import simulation_of

    simulation = simulation_of(500, user)
    simulation_run_inline(simulation=simulation, steps=3)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    drawn = _drawn(page)
    assert len(drawn["names"]) == 500
    log = _tiles_at(simulation, 3)
    assert {n: drawn["tiles"][2 * i : 2 * i + 2] for i, n in enumerate(drawn["names"])} == log
    # Every resident walking at once: halfway through a move, each is drawn halfway
    # between its tiles. How long such a frame takes is written next to the screenshots
    # (timings are measured, not asserted: docs/benchmarks.md).
    walking = page.evaluate(
        """() => {
          const town = window.smallvilleViewer.town;
          const now = performance.now();
          town.residents.forEach((r) => { r.fromX = r.x - 2; r.fromY = r.y; r.start = now; });
          const started = performance.now();
          for (let k = 0; k < 10; k++) town.frame(now + 225);
          const ms = (performance.now() - started) / 10;
          return { ms, points: town.drawn, tile: town.tile };
        }"""
    )
    tile = walking["tile"]
    # Residents on one tile (the copies stand on the 25's tiles) are fanned out on a ring
    # around the point: their mean is the point, each as far from it as the others.
    around: dict[tuple[float, float], list[tuple[float, float]]] = {}
    for i, (x, y) in enumerate(walking["points"]):
        tx, ty = drawn["tiles"][2 * i : 2 * i + 2]
        around.setdefault(((tx - 1 + 0.5) * tile, (ty + 0.5) * tile), []).append((x, y))
    for (cx, cy), points in around.items():
        mx, my = sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
        assert abs(mx - cx) < 1 and abs(my - cy) < 1, (cx, cy, points)
        spans = [((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 for x, y in points]
        assert max(spans) - min(spans) < 1, spans
    frame = artifact(page, "viewer-500-residents").with_name("viewer-500-residents-frame.json")
    frame.write_text(json.dumps({"residents": 500, "ms_per_frame": round(walking["ms"], 2)}))


def test_two_residents_on_one_tile_are_both_seen_and_clicked(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    first, second = simulation.agents.order_by("name")[:2]
    # The second walks onto the first's tile.
    events_append(
        simulation=simulation,
        drafts=[
            EventDraft(kind=AGENT_MOVED, agent=second.name,
                       payload={"tile": [first.tile_x, first.tile_y]}),
            EventDraft(kind=SIMULATION_STEPPED, payload={"step": 1}),
        ],
        step=1,
    )  # fmt: skip
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    drawn = _settled(page)
    i, j = drawn["names"].index(first.name), drawn["names"].index(second.name)
    assert drawn["tiles"][2 * i : 2 * i + 2] == drawn["tiles"][2 * j : 2 * j + 2]
    (ax, ay), (bx, by) = drawn["points"][i], drawn["points"][j]
    radius = page.evaluate("() => window.smallvilleViewer.town.radius")
    assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= 1.9 * radius  # side by side
    for k, (x, y), name in ((i, (ax, ay), first.name), (j, (bx, by), second.name)):
        assert near(pixel(page, x, y)[:3], resident_rgb(page, k)), name
        page.locator("#map").click(position={"x": x, "y": y})
        expect(page.locator("#resident-body h2")).to_contain_text(name)
    artifact(page, "viewer-shared-tile")


def test_follow_keeps_the_resident_in_view_while_it_walks(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    simulation = _simulation(user, steps=40)
    # The one who walks farthest over the run.
    start, end = _tiles_at(simulation, 0), _tiles_at(simulation, 40)
    walker = max(start, key=lambda n: abs(start[n][0] - end[n][0]) + abs(start[n][1] - end[n][1]))
    assert start[walker] != end[walker]
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    for _ in range(5):  # close in: the map overflows its box, and the camera must move
        page.click("#zoom-in")
    i = _drawn(page)["names"].index(walker)
    page.evaluate(f"() => window.smallvilleViewer.select({i})")
    expect(page.locator("#resident-body h2")).to_contain_text(walker)
    page.click("#follow")
    expect(page.locator("#follow")).to_have_attribute("aria-pressed", "true")
    seen = set()
    for step in [*range(0, 41, 4), 40, 0]:
        _scrub(page, step)
        view = page.evaluate(
            """(i) => {
              const v = window.smallvilleViewer, w = document.getElementById("map-wrap");
              const t = v.town.tile;
              return {x: (v.state.tiles[2 * i] + 0.5) * t, y: (v.state.tiles[2 * i + 1] + 0.5) * t,
                      left: w.scrollLeft, top: w.scrollTop, width: w.clientWidth,
                      height: w.clientHeight, overflows: w.scrollWidth > w.clientWidth};
            }""",
            i,
        )
        assert view["overflows"]
        assert view["left"] <= view["x"] <= view["left"] + view["width"], (step, view)
        assert view["top"] <= view["y"] <= view["top"] + view["height"], (step, view)
        seen.add((view["left"], view["top"]))
    assert len(seen) > 1, "the camera never moved"


def test_in_replay_the_town_panel_shows_the_replayed_step(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    simulation = _simulation(user, steps=10)
    piano = "the Ville:Hobbs Cafe:cafe:piano"
    for step, drafts in (
        (11, [object_state(address=piano, state="being played by a stranger")]),
        (12, []),
        (13, [object_state(address=piano, state="idle")]),
        (14, []),
    ):
        stepped = EventDraft(kind=SIMULATION_STEPPED, payload={"step": step})
        events_append(simulation=simulation, drafts=[*drafts, stepped], step=step)
    Simulation.objects.filter(pk=simulation.pk).update(step=14)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    expect(page.locator("#objects")).to_have_text("all idle")  # live: step 14

    _scrub(page, 12)
    expect(page.locator("#objects")).to_have_text("cafe: piano being played by a stranger")
    replayed = page.locator("#feed-replay li")
    expect(replayed.first).to_be_visible()
    assert page.locator("#feed").is_hidden()
    steps = [int(s) for s in replayed.evaluate_all("items => items.map(i => i.dataset.step)")]
    assert max(steps) == 12 and 11 in steps, steps
    _scrub(page, 5)
    expect(page.locator("#objects")).to_have_text("all idle")
    page.wait_for_function(
        "[...document.querySelectorAll('#feed-replay li')].every(i => +i.dataset.step <= 5)"
    )
    page.click("#live")
    page.wait_for_function(
        "!document.getElementById('feed').hidden && document.getElementById('feed-replay').hidden"
    )
    expect(page.locator("#objects")).to_have_text("all idle")


def test_a_conversation_earlier_is_a_click_away_in_time(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    simulation = _simulation(user, steps=4)
    names = sorted(simulation.agents.values_list("name", flat=True))[:2]
    talk = conversation_held(
        agent=names[0],
        participants=names,
        lines=[{"speaker": names[0], "text": "The ferry is late again."}],
        summary="they talk about the late ferry",
        address="",
    )
    for step, drafts in ((5, [talk]), (6, []), (7, []), (8, [])):
        stepped = EventDraft(kind=SIMULATION_STEPPED, payload={"step": step})
        events_append(simulation=simulation, drafts=[*drafts, stepped], step=step)
    Simulation.objects.filter(pk=simulation.pk).update(step=8)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    link = page.locator("#talks a")
    expect(link).to_have_count(1)
    expect(link).to_contain_text(f"{names[0]} ↔ {names[1]}")
    expect(page.locator("#talks")).to_contain_text("the late ferry")
    link.click()
    page.wait_for_function("window.smallvilleViewer.shownStep === 5")
    assert page.evaluate("document.getElementById('viewer').dataset.mode") == "replay"
    # Before it was held, it is not listed.
    _scrub(page, 3)
    expect(page.locator("#talks")).to_contain_text("none yet")


def test_a_conversations_lines_appear_as_bubbles_live_and_in_replay(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user, steps=4)
    a, b = sorted(simulation.agents.values_list("name", flat=True))[:2]
    lines = [
        {"speaker": a, "text": "The ferry is late again."},
        {"speaker": b, "text": "It always is on a Tuesday."},
    ]
    talking = [
        agent_acting(agent=me, action=f"chatting with {you}", emoji="💬", address="", spo=(),
                     start_step=5, end_step=9, chatting_with=you)
        for me, you in ((a, b), (b, a))
    ]  # fmt: skip
    held = conversation_held(agent=a, participants=[a, b], lines=lines, summary="", address="")
    for step, drafts in ((5, [*talking, held]), (6, []), (7, []), (8, [])):
        stepped = EventDraft(kind=SIMULATION_STEPPED, payload={"step": step})
        events_append(simulation=simulation, drafts=[*drafts, stepped], step=step)
    Simulation.objects.filter(pk=simulation.pk).update(step=8)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)

    def bubbles() -> list[dict[str, Any]]:
        return list(page.evaluate("() => window.smallvilleViewer.town.bubbles || []"))

    names = _drawn(page)["names"]
    # Live at step 8: the second line, over its speaker.
    page.wait_for_function("(window.smallvilleViewer.town.bubbles || []).length === 1")
    assert bubbles() == [{"i": names.index(b), "text": lines[1]["text"]}]
    drawn = _settled(page)
    x, y = drawn["points"][names.index(b)]
    radius = page.evaluate("() => window.smallvilleViewer.town.radius")
    assert near(pixel(page, x, y - radius * 2.2 - 2)[:3], [255, 255, 255], 8)  # the bubble
    artifact(page, "viewer-bubble")
    _scrub(page, 5)  # replay: the first line, over the first speaker
    page.wait_for_function(
        f"(window.smallvilleViewer.town.bubbles || []).some((b) => b.i === {names.index(a)})"
    )
    assert bubbles() == [{"i": names.index(a), "text": lines[0]["text"]}]
    _scrub(page, 4)  # before it began: nobody speaks
    page.wait_for_function("(window.smallvilleViewer.town.bubbles || []).length === 0")


def test_the_heat_map_counts_where_residents_stood_up_to_the_step_shown(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user, steps=40)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    page.click("#heat")
    expect(page.locator("#heat")).to_have_attribute("aria-pressed", "true")

    def heat() -> dict[str, Any]:
        return dict(
            page.evaluate(
                """() => { const h = window.smallvilleViewer.town.heat;
                  return h && {to: h.to, counts: Object.fromEntries(h.counts), max: h.max}; }"""
            )
            or {}
        )

    page.wait_for_function("window.smallvilleViewer.town.heat?.to === 40")
    live = heat()
    width = simulation.town.width
    # Every resident counted once a step, on the tile the log had it on then.
    expected: dict[str, int] = {}
    for step in range(1, 41):
        for x, y in _tiles_at(simulation, step).values():
            expected[str(y * width + x)] = expected.get(str(y * width + x), 0) + 1
    assert live["counts"] == expected
    # A tile stood on earlier, away from where anyone stands now, is drawn in red.
    now = list(_tiles_at(simulation, 40).values())
    far = max(
        expected,
        key=lambda k: min(abs(int(k) % width - x) + abs(int(k) // width - y) for x, y in now),
    )
    fx, fy = int(far) % width, int(far) // width
    assert min(abs(fx - x) + abs(fy - y) for x, y in now) >= 3
    tile = _drawn(page)["tile"]
    red, green, blue = pixel(page, (fx + 0.5) * tile, (fy + 0.5) * tile)[:3]
    assert red > green and red > blue, (red, green, blue)
    artifact(page, "viewer-heat-map")
    _scrub(page, 20)
    page.wait_for_function("window.smallvilleViewer.town.heat?.to === 20")
    assert sum(heat()["counts"].values()) == 20 * len(_tiles_at(simulation, 20))
    page.click("#heat")
    page.wait_for_function("window.smallvilleViewer.town.heat === null")


def test_the_minimap_frames_the_part_shown_and_a_click_goes_there(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    for _ in range(5):
        page.click("#zoom-in")

    def view() -> dict[str, Any]:
        return dict(
            page.evaluate(
                """() => { const w = document.getElementById("map-wrap");
                  const m = window.smallvilleViewer.minimap;
                  return {left: w.scrollLeft, top: w.scrollTop, width: w.clientWidth,
                          height: w.clientHeight, scale: m.scale(), frame: m.frame}; }"""
            )
        )

    page.wait_for_function("window.smallvilleViewer.minimap.frame !== undefined")
    before = view()
    assert before["frame"]["w"] < 200  # zoomed in: the map shows a part of the town
    box = page.locator("#minimap").bounding_box()
    assert box is not None
    page.locator("#minimap").click(position={"x": box["width"] * 0.8, "y": box["height"] * 0.7})
    page.wait_for_function(f"document.getElementById('map-wrap').scrollLeft > {before['left']}")
    # The frame follows the map's scroll.
    page.wait_for_function(
        """() => { const w = document.getElementById("map-wrap");
          const m = window.smallvilleViewer.minimap;
          return Math.abs(m.frame.x - w.scrollLeft * m.scale()) < 0.5
              && Math.abs(m.frame.y - w.scrollTop * m.scale()) < 0.5; }"""
    )
    after = view()
    # The point clicked is now the middle of the map, as far as the map can scroll.
    room = page.evaluate(
        "() => { const w = document.getElementById('map-wrap');"
        " return [w.scrollWidth - w.clientWidth, w.scrollHeight - w.clientHeight]; }"
    )
    clicked = {"width": box["width"] * 0.8, "height": box["height"] * 0.7}
    for axis, size, scroll in ((0, "width", "left"), (1, "height", "top")):
        wanted = clicked[size] / after["scale"] - after[size] / 2
        slack = 2 / after["scale"]  # two pixels of the minimap (its border)
        assert abs(after[scroll] - min(max(0, wanted), room[axis])) <= slack, (axis, after, room)
    artifact(page, "viewer-minimap")
