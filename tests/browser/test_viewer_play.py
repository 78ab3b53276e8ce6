"""Playing in the town from the viewer, two users at once, on the production server with a
real worker running the town at a step a second: the owner shares it and steps in, a
guest opens it from the landing page and steps in, both see each other, the guest walks by
key and by click, walks up to a resident and talks with it, who answers from a memory it
holds, the owner
sees that conversation, the replay shows it at its step, and the guest leaves."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from runtime.controls import agent_whisper
from runtime.engine import simulation_pause, simulation_run
from tests.browser.conftest import ARTIFACTS
from tests.browser.served import LiveServer
from tests.quay import CHANDLER, FAR, MENDER, NET_LOFT, quay_simulation
from tests.runtime.workers import wait_for
from world.models import Agent, Event, Simulation

Login = Callable[[Page, User, str], None]
Artifact = Callable[[Page, str], Path]
GUEST, HOST = "Idris Vale", "Wren Holloway"
NEWS = "the north jetty is closed for repairs until the spring tide"

pytestmark = pytest.mark.django_db(transaction=True)


def _viewer(page: Page) -> Any:
    return page.evaluate(
        "() => { const v = window.smallvilleViewer;"
        " return { names: v.residents.map((r) => r.name),"
        " present: v.residents.map((r) => r.left_step == null), step: v.lastStep }; }"
    )


def _sees(page: Page, name: str) -> bool:
    seen = _viewer(page)
    return name in seen["names"] and seen["present"][seen["names"].index(name)]


def _step_in(page: Page, name: str, about: str) -> None:
    page.fill("#join input[name=name]", name)
    page.fill("#join input[name=about]", about)
    page.select_option("#join-at", NET_LOFT)
    page.click("#join button[type=submit]")
    expect(page.locator("#me-name")).to_have_text(name)


def _clear_tile(page: Page, near: tuple[int, int]) -> tuple[tuple[int, int], float]:
    """A loft tile a few tiles from `near` that no one is drawn within two tiles of, as
    the page draws them now, and the tile's size in pixels."""
    found = page.evaluate(
        """([x0, y0]) => {
            const town = window.smallvilleViewer.town, t = town.tile;
            let best = null, bestClear = -1;
            for (let x = Math.max(1, x0 - 6); x <= Math.min(24, x0 + 6); x++) {
              for (let y = 1; y <= 3; y++) {
                if (Math.abs(x - x0) + Math.abs(y - y0) < 3) continue;
                const cx = (x + 0.5) * t, cy = (y + 0.5) * t;
                const clear = Math.min(Infinity, ...town.drawn.filter(Boolean).map(
                  ([px, py]) => Math.hypot(px - cx, py - cy)));
                if (clear > bestClear) { best = [x, y]; bestClear = clear; }
              }
            }
            return {tile: best, clear: bestClear / t, size: t};
        }""",
        list(near),
    )
    assert found["clear"] >= 2, found  # the loft is wide enough for that
    return (found["tile"][0], found["tile"][1]), float(found["size"])


def _tile(name: str, simulation: Simulation) -> tuple[int, int]:
    return Agent.objects.get(simulation=simulation, name=name).tile


def _talk(page: Page, simulation: Simulation, text: str) -> str:
    """Say `text` to the nearest resident in sight, as a player does: walk up to the
    nearest resident first while nobody is in sight. Returns who answered."""
    residents = [MENDER, CHANDLER, FAR]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        near = page.eval_on_selector_all(
            "#near li[data-name]", "(items) => items.map((li) => li.dataset.name)"
        )
        heard = [name for name in near if name in residents]
        if heard:
            page.select_option("#say-to", heard[0])
            page.fill("#say-text", text)
            page.click("#say button[type=submit]")
            try:
                page.wait_for_selector(f"#chat .line[data-speaker='{heard[0]}']", timeout=5_000)
                return heard[0]
            except PlaywrightTimeout:
                continue  # it walked out of sight meanwhile: the error says so; again
        me = _tile(GUEST, simulation)
        others = Agent.objects.filter(simulation=simulation, name__in=residents)
        nearest = min(others, key=lambda a: abs(a.tile_x - me[0]) + abs(a.tile_y - me[1]))
        page.evaluate("(tile) => window.smallvilleViewer.person.walk(tile)", list(nearest.tile))
        time.sleep(2)
    raise AssertionError("nobody came in sight in 90 s")


def test_two_people_play_in_one_town(
    live_server: LiveServer,
    browser: Browser,
    user: User,
    other_user: User,
    login: Login,
    artifact: Artifact,
) -> None:
    simulation = quay_simulation(user)
    for resident in Agent.objects.filter(simulation=simulation):
        agent_whisper(simulation=simulation, agent=resident, statement=NEWS)
    host_context = browser.new_context(viewport={"width": 1280, "height": 900})
    guest_context = browser.new_context(viewport={"width": 1280, "height": 900})
    host, guest = host_context.new_page(), guest_context.new_page()
    for page in (host, guest):
        page.set_default_timeout(20_000)
    try:
        login(host, user, "alice-password-1")
        host.goto(f"{live_server.url}/simulations/{simulation.pk}/")
        host.wait_for_selector("#viewer[data-ready=true]")
        # The owner shares it with bob in the Play panel.
        host.click("details.share summary")
        host.select_option("#share-mode", "invited")
        host.fill("#share-guests", other_user.get_username())
        host.click("#share-form button[type=submit]")
        expect(host.locator("#share-error")).to_have_text("saved")
        shared = Simulation.objects.get(pk=simulation.pk)
        assert shared.share == "invited" and list(shared.guests.all()) == [other_user]

        with live_server.worker():
            simulation_run(simulation=simulation, steps=240, pace=simulation.sec_per_step)
            _step_in(host, HOST, "the harbour master's clerk")

            login(guest, other_user, "bob-password-1")
            guest.click(f".shared-list a[href='/simulations/{simulation.pk}/']")
            guest.wait_for_selector("#viewer[data-ready=true]")
            # A guest has no run controls, fork, spend or evaluations.
            assert not guest.locator("#run").is_visible()
            assert not guest.locator("#fork").is_visible()
            assert not guest.locator("#spend").is_visible()
            # What residents say comes from the offline rules here, and the page says so.
            expect(guest.locator("#offline-note")).to_be_visible()
            _step_in(guest, GUEST, "a ferry pilot passing through")

            # Each sees the other in the town.
            wait_for(
                lambda: all(_sees(p, n) for p in (host, guest) for n in (HOST, GUEST)),
                30,
                "each other",
            )

            # Both walk: the owner a tile south by key; the guest a tile east by key, then
            # to a clicked tile.
            hosted = _tile(HOST, simulation)
            host.focus("#map-wrap")
            host.keyboard.press("s")
            wait_for(lambda: _tile(HOST, simulation) == (hosted[0], hosted[1] + 1), 30, "a step")
            start = _tile(GUEST, simulation)
            guest.focus("#map-wrap")
            guest.keyboard.press("d")
            wait_for(lambda: _tile(GUEST, simulation) == (start[0] + 1, start[1]), 30, "a step")
            # A click on a resident opens a talk, so the tile clicked is one nobody is
            # drawn near: residents walk the loft on their own.
            target, tile = _clear_tile(guest, (start[0] + 1, start[1]))
            box = guest.locator("#map").bounding_box()
            assert box is not None
            guest.mouse.click(
                box["x"] + (target[0] + 0.5) * tile, box["y"] + (target[1] + 0.5) * tile
            )
            wait_for(lambda: _tile(GUEST, simulation) == target, 30, "the clicked tile")

            # The guest asks someone in sight about what every resident holds (walking up
            # to the nearest when nobody is: residents come and go on their own).
            listener = _talk(guest, simulation, "Is the north jetty open today?")
            answer = guest.locator(f"#chat .line[data-speaker='{listener}']").first
            expect(answer).to_contain_text("jetty")
            answered_ms = int(guest.locator("#chat").get_attribute("data-answered-ms") or -1)
            artifact(guest, "viewer-play-guest")

            # The owner sees the conversation come in on the live log.
            expect(host.locator("#talks")).to_contain_text(GUEST, timeout=30_000)
            artifact(host, "viewer-play-owner")
            # The guest's chat has the exchange once, though the log brought it again.
            said_at = Event.objects.get(
                simulation=simulation, kind="conversation.held", agent=GUEST
            ).step
            guest.wait_for_function(f"window.smallvilleViewer.lastStep > {said_at}")
            assert guest.locator("#chat .line").count() == 2
            simulation_pause(simulation=simulation)
            wait_for(
                lambda: Simulation.objects.get(pk=simulation.pk).status != "running", 60, "pause"
            )

        held = Event.objects.get(simulation=simulation, kind="conversation.held", agent=GUEST)
        lines = held.payload["lines"]
        assert [line["speaker"] for line in lines] == [GUEST, listener]

        # In replay the conversation is listed at its step and not at the one before.
        host.goto(f"{live_server.url}/simulations/{simulation.pk}/")
        host.wait_for_selector("#viewer[data-ready=true]")
        for step, shown in ((held.step, True), (held.step - 1, False)):
            host.evaluate(f"() => window.smallvilleViewer.scrub({step})")
            talks = expect(host.locator("#talks"))
            if shown:
                talks.to_contain_text(GUEST)
            else:
                talks.not_to_contain_text(GUEST)

        # The guest leaves: gone from the town, in the replay up to the step it left.
        guest.click("#leave")
        expect(guest.locator("#play-out")).to_be_visible()
        left = Agent.objects.get(simulation=simulation, name=GUEST).left_step
        assert left is not None and left >= held.step
        host.goto(f"{live_server.url}/simulations/{simulation.pk}/")
        host.wait_for_selector("#viewer[data-ready=true]")
        assert not _sees(host, GUEST)
        (ARTIFACTS / "viewer-play.json").write_text(
            json.dumps({"answered_ms": answered_ms, "conversation_step": held.step})
        )
    finally:
        host_context.close()
        guest_context.close()
