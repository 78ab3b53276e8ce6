"""Screenshots of the viewer for docs/viewer.md: `python -m bench.screens [--simulation ID]`.

The n25 town (base_the_ville_n25, the offline backend, the paper's cognition) at 12:00 on
Feb 14, 2023: the whole town, and zoomed in on Hobbs Cafe with a resident's panel open,
written to docs/images/. Without --simulation, makes the simulation and runs it there
from the base's start (Feb 13, 00:00; 36 sim hours, most of an hour on a 2-core machine);
with one, it is run on to that time if it is not there yet.
"""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402

from agents.services import simulation_create_from_base  # noqa: E402
from bench.browser import open_viewer, scrub, viewer_page  # noqa: E402
from runtime.engine import simulation_run_inline  # noqa: E402
from world.models import Simulation  # noqa: E402

WHEN = datetime(2023, 2, 14, 12, 0, tzinfo=UTC)
IMAGES = Path(settings.BASE_DIR) / "docs" / "images"
ZOOMS = 4  # clicks on +: the cafe's tables and its residents' captions readable
CAFE = "Hobbs Cafe"


def simulation_at_noon(simulation_id: int | None) -> Simulation:
    """The n25 simulation, run to WHEN."""
    if simulation_id is None:
        owner, _ = User.objects.get_or_create(username="screens")
        simulation = simulation_create_from_base(
            owner=owner, base="base_the_ville_n25", name="the n25 town, for the screenshots"
        )
    else:
        simulation = Simulation.objects.get(pk=simulation_id)
    step = int((WHEN - simulation.start_time).total_seconds()) // simulation.sec_per_step
    if simulation.step < step:
        simulation = simulation_run_inline(simulation=simulation, until=WHEN)
    return simulation


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens", description=__doc__)
    parser.add_argument("--simulation", type=int, help="an n25 simulation to use")
    args = parser.parse_args(argv)
    simulation = simulation_at_noon(args.simulation)
    step = int((WHEN - simulation.start_time).total_seconds()) // simulation.sec_per_step
    IMAGES.mkdir(parents=True, exist_ok=True)
    with viewer_page(simulation.owner, width=1440, height=1060) as (page, url):
        open_viewer(page, url, simulation.pk)
        if simulation.step != step:
            scrub(page, step)
        page.wait_for_timeout(1000)  # the residents' last walk, the panels' lists
        town = IMAGES / "viewer-n25-town.png"
        page.screenshot(path=str(town))
        for _ in range(ZOOMS):
            page.click("#zoom-in")
        # The cafe in the middle of the map, and the resident nearest it in the panel.
        nearest = page.evaluate(
            """(name) => {
              const v = window.smallvilleViewer, t = v.town.tile;
              const [x, y] = v.town.map.sectors.find((s) => s.name === name).label_tile;
              const wrap = document.getElementById("map-wrap");
              wrap.scrollLeft = (x + 0.5) * t - wrap.clientWidth / 2;
              wrap.scrollTop = (y + 1.5) * t - wrap.clientHeight / 2;
              let best = -1, distance = Infinity;
              v.residents.forEach((r, i) => {
                const d = (v.state.tiles[2 * i] - x) ** 2 + (v.state.tiles[2 * i + 1] - y) ** 2;
                if (d < distance) [best, distance] = [i, d];
              });
              return best;
            }""",
            CAFE,
        )
        page.evaluate(f"() => window.smallvilleViewer.select({nearest})")
        page.wait_for_selector("#resident-action")
        page.wait_for_timeout(500)
        cafe = IMAGES / "viewer-n25-hobbs-cafe.png"
        page.screenshot(path=str(cafe))
    print(f"step {step} of simulation {simulation.pk}: {town}, {cafe}")


if __name__ == "__main__":
    main()
