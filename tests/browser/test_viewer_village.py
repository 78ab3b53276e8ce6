"""The viewer on a small town of the test's own (tests/village.py: four places, three
residents): the resident's panel in replay shows the place and plan of the step shown; the
place names fit their places and no figure hides one; the captions are whole on the
screen; `+` and `-` zoom."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from agents.events import agent_acting, agent_moved
from tests.browser.drawn import near, resident_rgb
from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, Artifact, Login, _open, _scrub, _settled
from tests.browser.test_viewer_layout import _overlapping, _painted, _view
from tests.village import (
    APOTHECARY,
    BAKER,
    FORGE,
    GREEN,
    GRID,
    HERBALIST,
    SMITH,
    village_morning,
    village_simulation,
)
from world.eventlog import events_append_steps
from world.events import simulation_stepped
from world.models import Simulation
from world.townmap import town_map

pytestmark = pytest.mark.django_db(transaction=True)


def _panel_at(page: Page, step: int) -> tuple[str, list[str], str]:
    """The resident's panel once its place and plan show `step`: the place, the plan items
    marked under way (each its own line, outermost first) and the plan's whole text."""
    page.wait_for_function(
        "(step) => ['resident-place', 'resident-plan'].every((id) =>"
        " document.getElementById(id)?.dataset.step === String(step))",
        arg=step,
    )
    place = page.locator("#resident-place").inner_text()
    current = page.evaluate(
        """() => Array.from(document.querySelectorAll("#resident-plan li.current")).map((li) =>
             Array.from(li.childNodes).filter((n) => n.nodeName !== "UL")
               .map((n) => n.textContent).join("").trim())"""
    )
    return place, list(current), page.locator("#resident-plan").inner_text()


def test_the_panel_in_replay_shows_the_place_and_plan_of_the_step_shown(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    """The smith plans at step 1 in the forge, re-plans at step 3 and walks to the green,
    then at step 6 on to the apothecary; live is step 10."""
    simulation = village_simulation(user)
    village_morning(simulation)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    drawn = _settled(page)
    x, y = drawn["points"][drawn["names"].index(SMITH)]
    page.locator("#map").click(position={"x": x, "y": y})

    place, current, _ = _panel_at(page, 10)
    assert place == APOTHECARY
    assert "buy salve for a burn" in current[-1], current

    _scrub(page, 1)
    place, current, plan = _panel_at(page, 1)
    assert place == FORGE
    assert [line.split(" now ")[-1].strip() for line in current][:2] == [
        "mind the forge (300 min)",
        "shoe the miller's horse (60 min)",
    ], current
    assert "stoke the fire" in current[-1], current
    assert "hammer horseshoes" in plan and "fetch water" not in plan  # not planned yet
    artifact(page, "viewer-village-replay-step-1")

    _scrub(page, 4)
    place, current, plan = _panel_at(page, 4)
    assert place == GREEN
    assert "fetch water from the well" in current[-1], current
    assert "hammer horseshoes" not in plan  # dropped by the re-plan of step 3
    artifact(page, "viewer-village-replay-step-4")

    page.click("#live")
    place, current, _ = _panel_at(page, 10)
    assert place == APOTHECARY and "buy salve for a burn" in current[-1]


def _extents() -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """Each place's extent in tiles, (x0, y0, x1, y1) with x1, y1 past its last tile, read
    from the village's grid here: ("sector" or "arena", name) -> extent."""
    tiles: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for y, row in enumerate(GRID["rows"]):
        for x, char in enumerate(row):
            cell = GRID["legend"][char]
            for kind in ("sector", "arena"):
                if kind in cell:
                    tiles.setdefault((kind, cell[kind]), []).append((x, y))
    return {
        key: (
            min(x for x, _ in at),
            min(y for _, y in at),
            max(x for x, _ in at) + 1,
            max(y for _, y in at) + 1,
        )
        for key, at in tiles.items()
    }


def _step_in(simulation: Simulation, drafts: list[Any]) -> None:
    """The drafts and the close of the next step."""
    step = simulation.step + 1
    events_append_steps(
        simulation=simulation, batches=[(step, [*drafts, simulation_stepped(step=step)])]
    )
    simulation.refresh_from_db()


def test_place_names_fit_their_places_and_no_figure_hides_one(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    """Three residents stand on the tiles three places' names are written at."""
    simulation = village_simulation(user)
    people = (SMITH, HERBALIST, BAKER)
    labelled = town_map(town=simulation.town).arenas[: len(people)]
    _step_in(
        simulation,
        [agent_moved(agent=n, tile=a.label) for n, a in zip(people, labelled, strict=True)],
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    extents = _extents()
    for zoom, clicks in (("fit", 0), ("closer", 2)):
        for _ in range(clicks):
            page.click("#zoom-in")
        drawn = _settled(page)
        _painted(page)
        artifact(page, f"viewer-village-names-{zoom}")
        view = _view(page)
        labels, t = view["labels"], view["tile"]
        # Every place named, whole, inside its place; none over another.
        assert {(b["kind"], b["name"]) for b in labels} == set(extents), zoom
        assert all(" ".join(b.get("lines", [b["name"]])) == b["name"] for b in labels)
        assert _overlapping(labels) == [], zoom
        for b in labels:
            x0, y0, x1, y1 = extents[(b["kind"], b["name"])]
            assert x0 * t - 0.5 <= b["x"] and b["x"] + b["w"] <= x1 * t + 0.5, (zoom, b)
            assert y0 * t - 0.5 <= b["y"] and b["y"] + b["h"] <= y1 * t + 0.5, (zoom, b)
        # The residents stand on the names' tiles, yet no pixel of a name's box is a
        # shirt's colour: the names stand aside, or are drawn over the figures.
        shirts = [resident_rgb(page, i) for i in range(len(drawn["names"]))]
        colours = page.evaluate(
            """(labels) => labels.map((b) => {
              const r = window.devicePixelRatio || 1;
              const c = document.getElementById("map").getContext("2d");
              const d = c.getImageData(b.x * r, b.y * r, b.w * r, b.h * r).data;
              const seen = new Set();
              for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
              return Array.from(seen, (rgb) => rgb.split(",").map(Number));
            })""",
            labels,
        )
        for b, seen in zip(labels, colours, strict=True):
            hidden = [rgb for rgb in seen if any(near(rgb, shirt, 12) for shirt in shirts)]
            assert hidden == [], (zoom, b["name"], hidden[:5])


def test_captions_are_whole_on_the_screen(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    """Residents at the map's bottom and right edges, each doing something."""
    simulation = village_simulation(user)
    at = {SMITH: (2, 8), HERBALIST: (16, 7), BAKER: (8, 5)}
    doing = {SMITH: "carrying a bag of flour", HERBALIST: "drying yarrow", BAKER: "resting"}
    _step_in(
        simulation,
        [
            draft
            for name, tile in at.items()
            for draft in (
                agent_moved(agent=name, tile=tile),
                agent_acting(
                    agent=name,
                    action=doing[name],
                    emoji="",
                    address="",
                    spo=(),
                    start_step=1,
                    end_step=20,
                ),
            )
        ],
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    _settled(page)
    _painted(page)
    seen = page.evaluate(
        """() => {
          const v = window.__viewer, box = document.getElementById("map").getBoundingClientRect();
          return {
            captions: v.town.captions.map((c) => ({...c, name: v.residents[c.i].name})),
            left: box.left, top: box.top, width: box.width, height: box.height,
            viewWidth: window.innerWidth, viewHeight: window.innerHeight,
          };
        }"""
    )
    artifact(page, "viewer-village-captions")
    assert {c["name"]: c["text"] for c in seen["captions"]} == doing
    for c in seen["captions"]:
        assert c["x"] >= 0 and c["x"] + c["w"] <= seen["width"] + 0.5, c  # in the map
        assert c["y"] >= 0 and c["y"] + c["h"] <= seen["height"] + 0.5, c
        assert seen["left"] + c["x"] + c["w"] <= seen["viewWidth"], c  # and on the screen
        assert seen["top"] + c["y"] + c["h"] <= seen["viewHeight"], c


def test_plus_and_minus_zoom_a_small_town(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = village_simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    fit = _view(page)
    assert abs(fit["canvasWidth"] - fit["wrapWidth"]) <= 1, fit  # the town fills its box
    tiles = [fit["tile"]]
    for _ in range(3):
        page.click("#zoom-in")
        tiles.append(_view(page)["tile"])
    assert all(b > a * 1.2 for a, b in pairwise(tiles)), tiles
    assert _view(page)["canvasWidth"] > fit["wrapWidth"] * 1.9
    artifact(page, "viewer-village-zoomed")
    for _ in range(3):
        page.click("#zoom-out")
    assert abs(_view(page)["tile"] - fit["tile"]) < 1e-6
