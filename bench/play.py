"""People playing in a paced town, timed in the browser: `python -m bench play
[--minutes M] [--pace P] [--people K] [--lines N] [--every S]`.

Makes a base_the_ville_n25 simulation starting at 10:00 of its first day (the residents up
and about; offline backend, the paper's cognition), runs it at `--pace` sim seconds a wall
second (10: one 10 s step a second, the viewer's "a step a second") through a worker of two
processes. The owner shares it with K - 1 invited users, and each of the K opens the viewer
in a headless Chromium context of their own. There each steps in through the Play panel
where most residents stand, and says up to `--lines` lines, one every `--every` seconds,
each to a resident in sight (walking to the nearest resident when none is), in turns,
until `--minutes` pass.
For each line it records the time from Say to the answer shown in the chat, as the page
measures it (`performance.now()`), and as Playwright sees it from the click. It prints
their median, 95th percentile and largest, and how much of the pace the run held
meanwhile. The offline backend's answers show the mechanics' latency, not a model's. From
this process's CPU (it serves the app to the K people) it estimates how many people two
cores could serve at that pace.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from collections import Counter
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page

from agents.services import simulation_create_from_base
from bench.browser import open_viewer, viewer_pages
from bench.load.sampling import group_cpu_seconds
from bench.machine import stamp
from bench.runs import bench_owner, leftovers_pause
from runtime.controls.players import share_set
from runtime.engine import simulation_pause, simulation_run
from runtime.pace import pace_of
from runtime.workerproc import private_worker
from world.models import Agent, Base, Simulation
from world.selectors import address_at, town_cached

N25 = "base_the_ville_n25"
# What the person says: small talk any resident of any town can be asked.
LINES = (
    "Hello! I have only just arrived. What are you busy with today?",
    "What do you like most about living here?",
    "Is there anything happening in town that I should know about?",
    "Who would you say I should meet first?",
    "Where do people usually go in the evening?",
)
PEOPLE = (
    ("Ada Newcomb", "a travelling bookbinder, new in town"),
    ("Tomas Ferreira", "a surveyor sent to map the roads"),
    ("Lena Okafor", "a botanist looking for rare mosses"),
    ("Piet Vanloo", "a clockmaker thinking of opening a shop"),
)


def _busiest_arena(simulation: Simulation) -> str:
    """The arena where most residents stand now."""
    town = town_cached(pk=simulation.town_id)
    places = Counter(
        address_at(town=town, tile=a.tile) for a in Agent.present.filter(simulation=simulation)
    )
    arenas = [place for place, _ in places.most_common() if place.count(":") >= 2]
    return arenas[0] if arenas else next(iter(places))


def _near(page: Page, people: set[str]) -> list[str]:
    """The residents in sight, people left out (a person answers with their own line)."""
    near = page.eval_on_selector_all(
        "#near li[data-name]", "(items) => items.map((li) => li.dataset.name)"
    )
    return [name for name in near if name not in people]


def _say(page: Page, to: str, text: str) -> tuple[float, float] | None:
    """Say `text` to `to`; the answer's time in the page and from the click (ms)."""
    before = page.locator("#chat .line").count()
    page.select_option("#say-to", to)
    page.fill("#say-text", text)
    clicked = time.perf_counter()
    page.click("#say button[type=submit]")
    try:
        page.wait_for_function(
            f"document.querySelectorAll('#chat .line').length >= {before + 2}"
            " || document.getElementById('play-error').textContent !== ''",
            timeout=30_000,
        )
    except Exception:
        return None
    if page.locator("#play-error").text_content():
        page.evaluate("() => { document.getElementById('play-error').textContent = ''; }")
        return None  # asleep, or gone out of sight meanwhile
    seen = (time.perf_counter() - clicked) * 1000
    in_page = float(page.locator("#chat").get_attribute("data-answered-ms") or "nan")
    return in_page, seen


def _walk_to_someone(page: Page, simulation: Simulation, me: str) -> None:
    mine = Agent.objects.get(simulation=simulation, name=me)
    others = Agent.present.filter(simulation=simulation, user_controlled=False)
    nearest = min(others, key=lambda a: abs(a.tile_x - mine.tile_x) + abs(a.tile_y - mine.tile_y))
    page.evaluate(
        "(tile) => window.smallvilleViewer.person.walk(tile)", [nearest.tile_x, nearest.tile_y]
    )


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench play", description=__doc__)
    parser.add_argument("--minutes", type=float, default=4.0, help="how long they play")
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--people", type=int, default=2, choices=range(1, len(PEOPLE) + 1))
    parser.add_argument("--lines", type=int, default=20, help="the most each person says")
    parser.add_argument(
        "--every", type=float, default=4.0, help="seconds between a person's lines, at least"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if settings.SMALLVILLE_LLM_BACKEND != "offline":
        parser.error("the bench runs the offline backend: unset SMALLVILLE_LLM_BACKEND")
    leftovers_pause()
    owner = bench_owner()
    guests = [
        User.objects.get_or_create(username=f"{owner.get_username()}-guest-{n}")[0]
        for n in range(1, args.people)
    ]
    base = Base.objects.get(name=N25, owner__isnull=True)
    start = base.start_time.replace(hour=10, minute=0)
    simulation = simulation_create_from_base(
        owner=owner, base=N25, seed=args.seed, config={"cognition": "paper"}, start_time=start
    )
    if guests:
        share_set(simulation=simulation, share="invited", guests=[g.get_username() for g in guests])
    arrive = _busiest_arena(simulation)
    people = PEOPLE[: args.people]
    names = {name for name, _ in people}
    answers: list[tuple[float, float]] = []
    said = [0] * len(people)
    refused = 0
    wall = args.minutes * 60
    steps = math.ceil(wall * args.pace / simulation.sec_per_step) + 10
    with (
        private_worker(env={}, concurrency=2) as worker,
        viewer_pages([owner, *guests]) as (pages, url),
    ):
        group = os.getpgid(worker.pid)
        cpu = group_cpu_seconds(group)
        web = time.process_time()  # this process: the served app and the pages' driver
        simulation_run(simulation=simulation, steps=steps, pace=args.pace)
        for page, (name, about) in zip(pages, people, strict=True):
            open_viewer(page, url, simulation.pk)
            page.fill("#join input[name=name]", name)
            page.fill("#join input[name=about]", about)
            page.select_option("#join-at", arrive)
            page.click("#join button[type=submit]")
            page.wait_for_selector("#play-in:not([hidden])")
        deadline = time.monotonic() + wall
        while time.monotonic() < deadline and min(said) < args.lines:
            # the Play panel reads who is near every 1.5 s; the people take turns
            time.sleep(max(1.6, args.every) / len(people))
            turn = said.index(min(said))
            page, (name, _) = pages[turn], people[turn]
            near = _near(page, names)
            if not near:
                _walk_to_someone(page, simulation, name)
                continue
            answer = _say(page, near[0], LINES[said[turn] % len(LINES)])
            said[turn] += 1
            if answer is None:
                refused += 1
            else:
                answers.append(answer)
        simulation.refresh_from_db()
        pace = pace_of(simulation)
        assert pace.from_at is not None
        elapsed = (timezone.now() - pace.from_at).total_seconds()
        reached = simulation.step
        simulation_pause(simulation=Simulation.objects.get(pk=simulation.pk))
        cpu = group_cpu_seconds(group) - cpu
        web = time.process_time() - web
    in_page = [a for a, _ in answers]
    seen = [b for _, b in answers]
    due = math.floor(elapsed * args.pace / simulation.sec_per_step) + 1
    web_share = web / max(1e-9, elapsed) / len(people)  # of a core, for each person

    def summary(values: list[float]) -> dict[str, Any]:
        if not values:
            return {"median": None, "p95": None, "max": None}
        return {
            "median": round(statistics.median(values), 1),
            "p95": round(_percentile(values, 0.95), 1),
            "max": round(max(values), 1),
        }

    print(
        json.dumps(
            {
                **stamp(),
                "bench": "play",
                "backend": "offline (rules: the mechanics, not a model's words)",
                "residents": Agent.present.filter(simulation=simulation).count(),
                "people": len(people),
                "pace": args.pace,
                "arrived_at": arrive,
                "lines_said": len(answers) + refused,
                "lines_said_by_each": said,
                "answered": len(answers),
                "refused": refused,  # the listener asleep or out of sight by then
                "answer_ms_in_page": summary(in_page),
                "answer_ms_from_click": summary(seen),
                "under_2_s": sum(1 for value in seen if value < 2000),
                "window_seconds": round(elapsed, 1),
                "steps_reached": reached,
                "steps_due": due,
                "held": round(reached / due, 4),
                "worker_cpu_seconds": round(cpu, 1),
                "web_cpu_seconds": round(web, 1),
                # People 2 cores could serve at this pace beside the town's worker, were
                # this process's CPU (the app serving the people, and the driver) all a
                # person costs: an estimate, the database's CPU left out.
                "people_at_this_pace_estimate": int(
                    max(0.0, 2 - cpu / max(1e-9, elapsed)) / max(1e-9, web_share)
                ),
                "start": simulation.start_time.isoformat(),
            },
            indent=2,
        )
    )
