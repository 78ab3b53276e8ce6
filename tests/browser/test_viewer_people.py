"""The residents as the page draws them: characters told apart at a glance (each part in
the colour its look says, every resident of the n25 town looking different), a click on
any part of one opens its panel, and what each is doing as a caption when zoomed in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.events import agent_acting
from tests.browser.drawn import near, pixel
from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, Artifact, Login, _open, _settled, _simulation
from world.eventlog import events_append
from world.models import Event

pytestmark = pytest.mark.django_db(transaction=True)

# Where a part of the figure is, in figure pixels (8 by 12) from its top left: the sprite
# is drawn with one pixel of outline around it, the resident's point at the torso's middle
# (people.js: CENTRE_X 5, CENTRE_Y 8, a pixel 0.2 of the radius).
PARTS = {"shirt": (3, 6), "skin": (3, 3), "trousers": (2, 9), "hair": (3, 1), "cap": (3, 0)}
N25 = [
    "Latoya Williams", "Rajiv Patel", "Abigail Chen", "Francisco Lopez", "Hailey Johnson",
    "Arthur Burton", "Ryan Park", "Isabella Rodriguez", "Giorgio Rossi", "Carlos Gomez",
    "Klaus Mueller", "Maria Lopez", "Ayesha Khan", "Wolfgang Schulz", "Mei Lin", "John Lin",
    "Eddy Lin", "Tom Moreno", "Jane Moreno", "Tamara Taylor", "Carmen Ortiz", "Sam Moore",
    "Jennifer Moore", "Yuriko Yamamoto", "Adam Smith",
]  # fmt: skip


def _at(point: list[float], radius: float, part: str) -> tuple[float, float]:
    fx, fy = PARTS[part]
    u = radius * 0.2
    return point[0] + (fx - 3.5) * u, point[1] + (fy - 6.5) * u


def _rgb(page: Page, colour: str) -> list[int]:
    script = """(colour) => {
      const g = document.createElement("canvas").getContext("2d");
      g.fillStyle = colour;
      g.fillRect(0, 0, 1, 1);
      return Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3);
    }"""
    return list(page.evaluate(script, colour))


def _zoom_in(page: Page, times: int) -> None:
    for _ in range(times):
        page.click("#zoom-in")


def test_residents_are_characters_told_apart_at_a_glance(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    _zoom_in(page, 4)  # a figure pixel of 3 CSS pixels: each part can be read back
    drawn = _settled(page)
    radius = page.evaluate("() => window.smallvilleViewer.town.radius")
    looks = page.evaluate("() => window.smallvilleViewer.town.residents.map((r) => r.look)")
    for i, name in enumerate(drawn["names"]):
        look = looks[i]
        point = drawn["points"][i]
        hair = ("cap", look["trousers"]) if look["style"] == "cap" else ("hair", look["hair"])
        for part, colour in (
            ("shirt", look["shirt"]),
            ("skin", look["skin"]),
            ("trousers", look["trousers"]),
            hair,
        ):
            seen = pixel(page, *_at(point, radius, part))[:3]
            assert near(seen, _rgb(page, colour), 12), (name, part, seen, colour)
        # A click on its head opens its panel, as one on its body does.
        page.locator("#map-wrap").evaluate(
            "(w, [x, y]) => { w.scrollLeft = x - w.clientWidth / 2;"
            " w.scrollTop = y - w.clientHeight / 2; }",
            point,
        )
        x, y = _at(point, radius, "skin")
        page.locator("#map").click(position={"x": x, "y": y})
        expect(page.locator("#resident-body h2")).to_contain_text(name)
    artifact(page, "viewer-characters")
    # The whole n25 town: no two residents look alike, and a look is the name's alone
    # (the same on every page).
    script = """async (names) => {
      const people = await import("/static/web/viewer/people.js");
      return names.map((n) => JSON.stringify(people.lookOf(n)));
    }"""
    town = page.evaluate(script, N25)
    assert len(set(town)) == len(N25), town
    assert page.evaluate(script, N25) == town


def _caption(page: Page, i: int) -> dict[str, Any] | None:
    captions = page.evaluate("() => window.smallvilleViewer.town.captions")
    return next((c for c in captions if c["i"] == i), None)


def test_a_resident_says_what_it_is_doing_when_zoomed_in(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    names = sorted(simulation.agents.values_list("name", flat=True))
    doing = {
        names[0]: "arranging the chairs for the Valentine's Day party",
        names[1]: "reading",
        names[2]: "writing a long letter to the town council about the ferry",
    }
    events_append(
        simulation=simulation,
        drafts=[
            agent_acting(
                agent=name, action=action, emoji="📖", address="", spo=(), start_step=0, end_step=30
            )
            for name, action in doing.items()
        ],
        step=0,
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    # The whole town: no captions (the emoji say enough at that size).
    assert page.evaluate("() => window.smallvilleViewer.town.captions") == []
    _zoom_in(page, 5)
    drawn = _settled(page)
    page.wait_for_function("() => window.smallvilleViewer.town.captions.length > 0")
    captions = page.evaluate("() => window.smallvilleViewer.town.captions")
    for caption in captions:
        name = drawn["names"][caption["i"]]
        # The log's action, cut to 24 characters.
        logged = (
            Event.objects.filter(simulation=simulation, agent=name, kind="agent.acting")
            .latest("seq")
            .payload["action"]
        )
        text = caption["text"]
        assert len(text) <= 24
        assert text == (logged[:23] + "…" if len(logged) > 24 else logged), (text, logged)
        # Drawn: a light box with dark text, under or beside its resident.
        x = drawn["points"][caption["i"]][0]
        assert abs(caption["x"] + caption["w"] / 2 - x) < 2 or caption["x"] > x, caption
        inside = pixel(page, caption["x"] + 1.5, caption["y"] + caption["h"] / 2)[:3]
        assert min(inside) > 200, inside
    # No two captions meet.
    for k, a in enumerate(captions):
        for b in captions[k + 1 :]:
            assert not (
                a["x"] < b["x"] + b["w"]
                and b["x"] < a["x"] + a["w"]
                and a["y"] < b["y"] + b["h"]
                and b["y"] < a["y"] + a["h"]
            ), (a, b)
    # The selected resident's caption is drawn whatever else is near.
    i = drawn["names"].index(names[2])
    page.evaluate(f"() => window.smallvilleViewer.select({i})")
    page.wait_for_function(f"() => window.smallvilleViewer.town.captions.some((c) => c.i === {i})")
    caption = _caption(page, i)
    assert caption is not None and caption["text"] == doing[names[2]][:23] + "…"
    page.locator("#map-wrap").evaluate(
        "(w, [x, y]) => { w.scrollLeft = x - w.clientWidth / 2;"
        " w.scrollTop = y - w.clientHeight / 2; }",
        drawn["points"][i],
    )
    artifact(page, "viewer-captions")
