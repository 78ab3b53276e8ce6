"""Replay frames per second in the viewer: `python -m bench viewer_fps [--steps N]` prints
one JSON object.

The viewer in headless Chromium (the system's, 1440x900) replaying a busy stretch of a
day for 25 residents and for 500, as a user plays it (the slider stepped 10 steps a
second, each step's walk drawn) and scrubs it (the slider dragged 20 times a second, a
few steps each time), with the whole town in view and zoomed in four times (captions
drawn). Frames a second are requestAnimationFrame callbacks counted over a few seconds;
the map's own work per frame (TownView.frame) is timed too. The 25-resident log is a real
run (base_the_ville_n25, minimal cognition, offline, from 00:00); the 500's is its
resident events copied onto bench.engine's 500 residents (bench.replay's copied_day).
The stretch played is the hour with the most moves in the log.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count
from playwright.sync_api import Page

from bench.browser import open_viewer, scrub, viewer_page
from bench.engine import simulation_of
from bench.machine import stamp
from bench.replay import copied_day
from runtime.engine import simulation_run_inline
from world.models import Event, Simulation

SECONDS = 5.0
TARGET_FPS = 30

# Drive the slider for `seconds` while counting animation frames and timing the map's.
MEASURE = """async ([first, last, seconds, every, stride]) => {
  const v = window.smallvilleViewer, town = v.town, slider = document.getElementById("slider");
  const draw = town.frame, draws = [];
  town.frame = (now) => {
    const t = performance.now();
    draw.call(town, now);
    draws.push(performance.now() - t);
  };
  let frames = 0, running = true, step = first, shown = 0;
  const tick = () => { frames++; if (running) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const timer = setInterval(() => {
    step = step + stride > last ? first : step + stride;
    slider.value = String(step);
    slider.dispatchEvent(new Event("input"));
    shown++;
  }, every);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  running = false;
  clearInterval(timer);
  const elapsed = (performance.now() - started) / 1000;
  delete town.frame;
  draws.sort((a, b) => a - b);
  const at = (q) => draws[Math.min(draws.length - 1, Math.floor(q * draws.length))] || 0;
  return {fps: frames / elapsed, map_frames_per_s: draws.length / elapsed, steps_shown: shown,
          map_ms_p50: at(0.5), map_ms_p95: at(0.95), tile: town.tile,
          captions: (town.captions || []).length};
}"""


def busiest_hour(simulation: Simulation) -> tuple[int, int]:
    """The hour of steps (from, to) holding the most moves."""
    hour = 3600 // simulation.sec_per_step
    moves = (
        Event.objects.filter(simulation=simulation, kind="agent.moved")
        .values("step")
        .annotate(n=Count("id"))
    )
    per_step = {row["step"]: row["n"] for row in moves}
    last = max(hour, simulation.step)
    starts = range(1, last - hour + 1, hour // 6)
    first = max(starts, key=lambda s: sum(per_step.get(k, 0) for k in range(s, s + hour)))
    return first, first + hour


def measure(page: Page, url: str, simulation: Simulation) -> dict[str, Any]:
    first, last = busiest_hour(simulation)
    moves = Event.objects.filter(
        simulation=simulation, kind="agent.moved", step__gte=first, step__lte=last
    ).count()
    open_viewer(page, url, simulation.pk)
    scrub(page, first)  # the chunk read before the clock starts
    runs: dict[str, Any] = {}
    for zoom in (0, 4):
        for _ in range(zoom):
            page.click("#zoom-in")
        for mode, every, stride in (("play", 100, 1), ("scrub", 50, 3)):
            result = page.evaluate(MEASURE, [first, last, SECONDS, every, stride])
            runs[f"{mode}, {'whole town' if not zoom else 'zoomed in x4'}"] = {
                k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()
            }
    fps = [r["fps"] for r in runs.values()]
    return {
        "residents": simulation.agents.count(),
        "steps_played": [first, last],
        "moves_in_them": moves,
        "runs": runs,
        "fps_min": min(fps),
        "fps_median": round(statistics.median(fps), 1),
        "target_met": min(fps) >= TARGET_FPS,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench viewer_fps", description=__doc__)
    parser.add_argument(
        "--steps", type=int, default=4320, help="steps of the 25's day run (default 12 h)"
    )
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username="bench")
    day = simulation_run_inline(simulation=simulation_of(25, owner), steps=args.steps)
    crowd = copied_day(day, 500, owner)
    try:
        with viewer_page(owner) as (page, url):
            runs = [measure(page, url, day), measure(page, url, crowd)]
    finally:
        for simulation in (day, crowd):
            simulation.delete()
    report = {
        **stamp(),
        "load": os.getloadavg(),
        "browser": "headless Chromium (system package), 1440x900",
        "seconds_each": SECONDS,
        "target_fps": TARGET_FPS,
        "runs": runs,
    }
    print(json.dumps(report, indent=2))
