"""The town viewer as a new user sees it: the clock keeps up with a live run, place names
never overlap, residents' markers scale with the zoom, the map fills its container, and
the residents' emoji draw with the page's own font."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from agents.events import agent_acting
from tests.browser.conftest import ARTIFACTS
from tests.browser.drawn import near, pixel, resident_rgb
from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, Artifact, Login, _open, _settled, _simulation
from tests.browser.traffic import Traffic
from world.eventlog import events_append, events_append_steps
from world.events import simulation_stepped
from world.models import Simulation

pytestmark = pytest.mark.django_db(transaction=True)

RUN_STEPS = 400
FEW = 5  # steps the clock may trail the log it has read
WINDOW = 2.0  # seconds: a poll of the log and its request on a busy machine


def _t(sample: dict[str, float]) -> float:
    return sample["t"]


def _view(page: Page) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => {
              const v = window.__viewer;
              const wrap = document.getElementById("map-wrap");
              const box = document.getElementById("map").getBoundingClientRect();
              return {
                shown: v.shownStep, read: v.readStep, tile: v.town.tile, radius: v.town.radius,
                labels: v.town.labels.map((l) => ({...l})), canvasWidth: box.width,
                canvasHeight: box.height, wrapWidth: wrap.clientWidth,
                width: v.town.map.width, height: v.town.map.height,
              };
            }"""
        )
    )


def _painted(page: Page) -> None:
    """Wait until the page has drawn a frame since the last change (frames are drawn on
    the browser's next animation frame)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _overlapping(labels: list[dict[str, Any]]) -> list[tuple[str, str]]:
    pairs = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if (
                a["x"] < b["x"] + b["w"]
                and b["x"] < a["x"] + a["w"]
                and a["y"] < b["y"] + b["h"]
                and b["y"] < a["y"] + a["h"]
            ):
                pairs.append((a["name"], b["name"]))
    return pairs


def test_the_clock_keeps_up_with_a_live_run(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    """A run faster than the page walks its residents: the step shown trails the run's by
    no more than a poll's worth of steps, and the log the page has read by a few."""
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    samples: list[dict[str, float]] = []
    # The engine that runs residents ahead commits the steps it catches up on at once.
    with live_server.worker(SMALLVILLE_ENGINE="ahead"):
        page.fill("#run-steps", str(RUN_STEPS))
        page.click("#run")
        started = time.monotonic()
        while Simulation.objects.get(pk=simulation.pk).status != "running":
            assert time.monotonic() - started < 30, "the run never started"
            page.wait_for_timeout(50)
        started = time.monotonic()
        while True:
            view = _view(page)
            run = Simulation.objects.values_list("step", "status").get(pk=simulation.pk)
            samples.append(
                {
                    "t": time.monotonic() - started,
                    "run": run[0],
                    "shown": view["shown"],
                    "read": view["read"],
                }
            )
            if run[1] != "running":
                break
            assert samples[-1]["t"] < 180, "the run took too long"
            page.wait_for_timeout(200)
    rate = RUN_STEPS / samples[-1]["t"]  # steps a second
    # The page reads the log every 0.5 s (plus the request's time on a busy machine): the
    # step it shows is never behind where the run was WINDOW seconds before, less a few.
    behind = []
    for s in samples:
        before = [e for e in samples if e["t"] <= s["t"] - WINDOW]
        if before:
            behind.append(max(before, key=_t)["run"] - s["shown"])
    lag = max(behind)
    behind_read = max(s["read"] - s["shown"] for s in samples)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "viewer-clock-lag.json").write_text(
        json.dumps(
            {
                "steps_per_s": rate,
                "max_behind_run_window_before": lag,
                "max_behind_run": max(s["run"] - s["shown"] for s in samples),
                "max_behind_read": behind_read,
                "samples": samples,
            },
            indent=1,
        )
    )
    assert lag <= FEW, f"{lag} steps behind where a run of {rate:.0f} steps/s was {WINDOW} s before"
    assert behind_read <= FEW, f"the clock trailed the log it had read by {behind_read} steps"
    page.wait_for_function(f"window.__viewer.shownStep === {RUN_STEPS}", timeout=3_000)
    artifact(page, "viewer-caught-up")


def test_steps_committed_at_once_are_caught_up_at_once(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    """The engine that runs residents ahead writes the steps it caught up on in one batch:
    the page shows the last of them as soon as it has read them, not a step at a time."""
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    burst = 150
    events_append_steps(
        simulation=simulation,
        batches=[(step, [simulation_stepped(step=step)]) for step in range(1, burst + 1)],
    )
    page.wait_for_function(f"window.__viewer.readStep === {burst}", timeout=10_000)
    assert _view(page)["shown"] >= burst - FEW
    page.wait_for_function(f"window.__viewer.shownStep === {burst}", timeout=2_000)


def test_place_names_never_overlap_at_three_zooms(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    kinds = []
    for zoom, clicks in (("default", 0), ("closer", 3), ("closest", 4)):
        for _ in range(clicks):
            page.click("#zoom-in")
        _painted(page)
        view = _view(page)
        labels = view["labels"]
        assert len(labels) >= 8, (zoom, labels)
        assert _overlapping(labels) == [], zoom
        right, bottom = view["width"] * view["tile"] + 0.5, view["height"] * view["tile"] + 0.5
        for label in labels:  # inside the map
            assert label["x"] >= 0 and label["x"] + label["w"] <= right
            assert label["y"] >= 0 and label["y"] + label["h"] <= bottom
        kinds.append({label["kind"] for label in labels})
        # The names are drawn where their boxes are: the text's white outline (no colour
        # of the map is as light) in each box's left and right quarters.
        inked = page.evaluate(
            """(labels) => labels.map((b) => {
              const c = document.getElementById("map").getContext("2d");
              const r = window.devicePixelRatio || 1;
              const quarter = (x) => {
                const d = c.getImageData(x * r, b.y * r, (b.w / 4) * r, b.h * r).data;
                let n = 0;
                for (let i = 0; i < d.length; i += 4) n += Math.min(d[i], d[i + 1], d[i + 2]) > 218;
                return n;
              };
              return [b.name, quarter(b.x), quarter(b.x + (3 * b.w) / 4)];
            })""",
            labels,
        )
        assert all(left > 0 and right > 0 for _, left, right in inked), (zoom, inked)
        page.locator("#map-wrap").evaluate("(w) => { w.scrollLeft = 0; w.scrollTop = 0; }")
        artifact(page, f"viewer-labels-{zoom}")
    assert kinds[0] == {"sector"}, "zoomed out, the sectors are named"
    assert "arena" in kinds[1] and "arena" in kinds[2], "zoomed in, the arenas are named"


def test_markers_scale_with_the_zoom_and_the_map_fills_its_container(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    view = _view(page)
    assert abs(view["canvasWidth"] - view["wrapWidth"]) <= 1, view  # no blank strip
    page.click("#zoom-out")  # no further than the fit: the map never leaves a strip
    assert abs(_view(page)["canvasWidth"] - view["wrapWidth"]) <= 1
    sizes = [(view["tile"], view["radius"])]
    for _ in range(3):
        page.click("#zoom-in")
        drawn = _settled(page)
        zoomed = _view(page)
        sizes.append((zoomed["tile"], zoomed["radius"]))
        # The figure is drawn as large as it says: its shirt's sleeve near its side.
        x, y = drawn["points"][0]
        rim = pixel(page, x - zoomed["radius"] * 0.68, y + zoomed["radius"] * 0.1)[:3]
        assert near(rim, resident_rgb(page, 0)), (zoomed, rim)
    ratios = [radius / tile for tile, radius in sizes]
    assert sizes[-1][0] > sizes[0][0] * 1.8
    assert max(ratios) - min(ratios) < 0.01 * max(ratios), sizes
    # A narrower window: the map fits it again.
    page.set_viewport_size({"width": 1000, "height": 800})
    page.click("#zoom-out")
    for _ in range(6):
        page.click("#zoom-out")
    page.wait_for_function(
        """() => Math.abs(document.getElementById("map").getBoundingClientRect().width
               - document.getElementById("map-wrap").clientWidth) <= 1"""
    )
    artifact(page, "viewer-narrow-fit")


def test_the_residents_emoji_draw_with_the_pages_own_font(
    live_server: LiveServer,
    page: Page,
    user: User,
    login: Login,
    artifact: Artifact,
    traffic: Traffic,
) -> None:
    """This machine has no emoji font (`fc-list` lists none): what draws is the page's."""
    simulation = _simulation(user)
    name = simulation.agents.order_by("name").values_list("name", flat=True)[0]
    events_append(
        simulation=simulation,
        drafts=[
            agent_acting(
                agent=name,
                action="brewing tea",
                emoji="☕",
                address="",
                spo=(),
                start_step=0,
                end_step=30,
            )
        ],
        step=0,
    )
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    faces = page.evaluate(
        """() => Array.from(document.fonts).map((f) => [f.family.replace(/"/g, ""), f.status])"""
    )
    assert ["Smallville Emoji", "loaded"] in faces, faces
    ink = """([text, font]) => {
      const c = document.createElement("canvas");
      c.width = c.height = 64;
      const g = c.getContext("2d");
      g.font = font;
      g.textBaseline = "middle";
      g.fillText(text, 4, 32);
      const d = g.getImageData(0, 0, 64, 64).data;
      let drawn = 0, coloured = 0;
      for (let i = 0; i < d.length; i += 4) {
        const spread = Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]);
        drawn += d[i + 3] > 0;
        coloured += d[i + 3] > 200 && spread > 30;
      }
      return [drawn, coloured];
    }"""
    # The page's font draws the glyphs, in colour; without it an empty box at best (a
    # box's outline is about 140 pixels at this size, and grey).
    font = '40px "Smallville Emoji"'
    for emoji in ("☕", "🚶"):
        drawn, coloured = page.evaluate(ink, [emoji, font])
        assert coloured > 100, (emoji, drawn, coloured)
    drawn, _ = page.evaluate(ink, ["💬", font])
    assert drawn > 800, drawn
    # And the resident's emoji on the map, above its figure's right (zoomed in to see it):
    # coloured pixels that the map under it does not have.
    for _ in range(5):
        page.click("#zoom-in")
    drawn_now = _settled(page)
    x, y = drawn_now["points"][drawn_now["names"].index(name)]
    r = _view(page)["radius"]
    coloured = page.evaluate(
        """([x, y, w, h]) => {
          const v = window.__viewer.town;
          const k = window.devicePixelRatio || 1;
          const box = [x * k, y * k, w * k, h * k].map(Math.round);
          const shown = document.getElementById("map").getContext("2d").getImageData(...box).data;
          const map = v.background.getContext("2d").getImageData(...box).data;
          let n = 0;
          for (let i = 0; i < shown.length; i += 4) {
            const [r, g, b] = [shown[i], shown[i + 1], shown[i + 2]];
            const off = Math.abs(r - map[i]) + Math.abs(g - map[i + 1]) + Math.abs(b - map[i + 2]);
            if (off > 80 && Math.max(r, g, b) - Math.min(r, g, b) > 40) n++;
          }
          return n;
        }""",
        [x + 1.05 * r, y - 1.7 * r, 0.85 * r, 0.7 * r],
    )
    assert coloured > 25, coloured
    assert any(url.endswith(".ttf") for url in traffic.static()), traffic.static()
    assert traffic.offsite() == []
    page.locator("#map-wrap").evaluate(
        "(w, [x, y]) => { w.scrollLeft = x - w.clientWidth / 2; "
        "w.scrollTop = y - w.clientHeight / 2; }",
        [x, y],
    )
    artifact(page, "viewer-emoji")
