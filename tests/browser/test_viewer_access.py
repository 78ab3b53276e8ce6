"""The viewer for someone on a keyboard, someone who needs contrast, and someone on a
laptop: the main controls driven with the keyboard alone, every text's contrast against
its background at least WCAG AA's 4.5:1, and no sideways scroll at 1280x720 and 1440x900."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.served import LiveServer
from tests.browser.test_viewer import PASSWORD, Artifact, Login, _open, _simulation
from tests.runtime.workers import wait_for
from world.models import Simulation

pytestmark = pytest.mark.django_db(transaction=True)

AA = 4.5  # WCAG 2 level AA, normal text


def _active(page: Page) -> str:
    return str(page.evaluate("() => document.activeElement.id || document.activeElement.tagName"))


def _tab_to(page: Page, target: str, key: str = "Tab", limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until #target has the focus, and check the focus shows."""
    seen = []
    for _ in range(limit):
        page.keyboard.press(key)
        seen.append(_active(page))
        if seen[-1] == target:
            ring = page.evaluate(
                "() => { const s = getComputedStyle(document.activeElement);"
                " return [document.activeElement.matches(':focus-visible'), s.outlineStyle,"
                " parseFloat(s.outlineWidth)]; }"
            )
            assert ring[0] and ring[1] != "none" and ring[2] >= 2, (target, ring)
            return
    raise AssertionError(f"{key} never reached #{target}: {seen}")


def _view(page: Page) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => { const v = window.smallvilleViewer, w = document.getElementById("map-wrap");
              return {step: v.shownStep, mode: document.getElementById("viewer").dataset.mode,
                      tile: v.town.tile, left: w.scrollLeft, top: w.scrollTop}; }"""
        )
    )


def _status(simulation: Simulation) -> str:
    return str(Simulation.objects.values_list("status", flat=True).get(pk=simulation.pk))


def _has_status(simulation: Simulation, status: str) -> bool:
    return _status(simulation) == status


def test_the_main_controls_work_from_the_keyboard(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = _simulation(user, steps=20)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    # Zoom with the buttons: Enter and Space press them.
    tile = _view(page)["tile"]
    _tab_to(page, "zoom-in")
    page.keyboard.press("Enter")
    page.keyboard.press(" ")
    assert _view(page)["tile"] > tile * 1.5
    # On the map: + and - zoom, the arrows pan.
    _tab_to(page, "map-wrap")
    before = _view(page)
    page.keyboard.press("+")
    assert _view(page)["tile"] > before["tile"]
    page.keyboard.press("-")
    assert abs(_view(page)["tile"] - before["tile"]) < 1e-6
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    moved = _view(page)
    assert moved["left"] > before["left"] and moved["top"] > before["top"], moved
    page.keyboard.press("ArrowLeft")
    assert _view(page)["left"] < moved["left"]
    # The timeline: the slider's arrows and Home step through the replay, Live returns.
    _tab_to(page, "slider", "Shift+Tab")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.smallvilleViewer.shownStep === 19")
    assert _view(page)["mode"] == "replay"
    page.keyboard.press("Home")
    page.wait_for_function("window.smallvilleViewer.shownStep === 0")
    _tab_to(page, "live", "Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("window.smallvilleViewer.shownStep === 20")
    assert _view(page)["mode"] == "live"
    # A resident from the list: its panel opens; Follow by Enter; Escape closes the panel.
    _tab_to(page, "resident-pick")
    page.keyboard.press("ArrowDown")
    first = sorted(simulation.agents.values_list("name", flat=True))[0]
    expect(page.locator("#resident-body h2")).to_contain_text(first)
    _tab_to(page, "follow")
    page.keyboard.press("Enter")
    expect(page.locator("#follow")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(page.locator("#resident-panel")).to_be_hidden()
    assert _active(page) == "map-wrap"
    # Run, Pause and Resume, on a real worker.
    with live_server.worker():
        _tab_to(page, "run-steps", "Shift+Tab")
        page.keyboard.press("Control+a")
        page.keyboard.type("2000")
        _tab_to(page, "run")
        page.keyboard.press("Enter")
        wait_for(lambda: _status(simulation) == "running", 30, "the run")
        page.wait_for_function("window.smallvilleViewer.shownStep > 20", timeout=60_000)
        for button, status in (("pause", "paused"), ("resume", "running"), ("pause", "paused")):
            expect(page.locator(f"#{button}")).to_be_enabled()
            _tab_to(page, button)
            page.keyboard.press("Enter")
            wait_for(partial(_has_status, simulation, status), 30, f"{button} to take")
    artifact(page, "viewer-keyboard")


# Each visible text's colour and the background it is drawn on (the first opaque one up
# its ancestors, the text's own alpha blended onto it), with the contrast ratio.
CONTRASTS = """() => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] > 0.99) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3);
    const text = own.map((n) => n.textContent).join("").trim();
    if (!text || !el.getClientRects().length || el.closest("[hidden]") || el.disabled) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden") continue;
    const fg = parse(style.color), bg = background(el);
    const a = fg.length > 3 ? fg[3] : 1;
    const shown = fg.slice(0, 3).map((v, k) => v * a + bg[k] * (1 - a));
    const [hi, lo] = [lum(shown), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    out.push({text: text.slice(0, 40), tag: el.tagName, cls: el.className, ratio});
  }
  return out;
}"""


def test_every_text_has_aa_contrast_against_its_background(
    live_server: LiveServer, page: Page, user: User, login: Login
) -> None:
    simulation = _simulation(user, cognition="paper", steps=3)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    page.select_option("#resident-pick", simulation.agents.order_by("name")[0].name)
    page.wait_for_selector("#resident-panel .plan li.current")
    page.click("#evaluations-panel summary")
    checked = page.evaluate(CONTRASTS)
    assert len(checked) > 40, checked  # the bar, timeline, panels and their lists
    low = [c for c in checked if c["ratio"] < AA]
    assert low == [], low
    texts = " ".join(c["text"] for c in checked)
    for part in ("offline backend", "Conversations earlier", "Today's plan", "Spend"):
        assert part in texts, part


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_the_viewer_fits_a_laptop_screen(
    live_server: LiveServer,
    page: Page,
    user: User,
    login: Login,
    artifact: Artifact,
    size: tuple[int, int],
) -> None:
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    simulation = _simulation(user)
    login(page, user, PASSWORD)
    _open(page, live_server, simulation)
    page.select_option("#resident-pick", simulation.agents.order_by("name")[0].name)
    expect(page.locator("#resident-panel")).to_be_visible()
    layout = """() => {
      const box = (id) => document.getElementById(id).getBoundingClientRect();
      const map = box("map-wrap"), panel = box("resident-panel"), canvas = box("map");
      return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
              mapLeft: map.left, mapRight: map.right, mapTop: map.top, mapBottom: map.bottom,
              panelLeft: panel.left, panelRight: panel.right, canvasWidth: canvas.width,
              wrapWidth: document.getElementById("map-wrap").clientWidth,
              barRight: Math.max(...[...document.querySelectorAll(".viewer-bar > *, .timeline > *")]
                .map((e) => e.getBoundingClientRect().right))};
    }"""
    for zooms in (0, 3):  # zoomed in, the map scrolls inside its box, not the page
        for _ in range(zooms):
            page.click("#zoom-in")
        seen = page.evaluate(layout)
        assert seen["scroll"] <= seen["inner"], seen  # no sideways scroll of the page
        assert seen["barRight"] <= seen["inner"], seen  # every control on the screen
        assert seen["mapLeft"] >= 0 and seen["mapRight"] <= seen["panelLeft"], seen
        assert seen["panelRight"] <= seen["inner"], seen
        assert seen["mapRight"] - seen["mapLeft"] >= width * 0.55, seen  # the map leads
        assert seen["mapTop"] < height * 0.5, seen  # and starts above the fold
        if not zooms:
            assert abs(seen["canvasWidth"] - seen["wrapWidth"]) <= 1, seen  # the town fits
    artifact(page, f"viewer-{width}x{height}")
