"""Screenshots of the viewer for docs/viewer.md: `python -m bench.screens [--simulation ID]
[--base B --at TIME --sector S --prefix P]`.

A town at a sim time: the whole town, and zoomed in on a sector with the resident nearest
it in the panel, written to docs/images/<prefix>-town.png and <prefix>-sector.png. The
defaults: the n25 base (offline backend, the paper's cognition) at 12:00
on Feb 14, 2023, zoomed on Hobbs Cafe. Without --simulation, makes a simulation of the
base and runs it there from the base's start (for the n25, 36 sim hours: most of an hour
on a 2-core machine); with one, it is run on to that time if it is not there yet.
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

IMAGES = Path(settings.BASE_DIR) / "docs" / "images"
ZOOMS = 4  # clicks on +: a sector's tables and its residents' captions readable


def simulation_at(simulation_id: int | None, base: str, when: datetime) -> Simulation:
    """The simulation (made of `base` when none is given), run to `when`."""
    if simulation_id is None:
        owner, _ = User.objects.get_or_create(username="screens")
        simulation = simulation_create_from_base(
            owner=owner, base=base, name=f"{base}, for the screenshots"
        )
    else:
        simulation = Simulation.objects.get(pk=simulation_id)
    if simulation.step < simulation.step_at(when):
        simulation = simulation_run_inline(simulation=simulation, until=when)
    return simulation


def _sim_time(text: str) -> datetime:
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens", description=__doc__)
    parser.add_argument("--simulation", type=int, help="a simulation of the base to use")
    parser.add_argument("--base", default="base_the_ville_n25")
    parser.add_argument("--at", type=_sim_time, default="2023-02-14T12:00:00+00:00")
    parser.add_argument("--sector", default="Hobbs Cafe", help="the sector zoomed on")
    parser.add_argument("--prefix", default="viewer-n25", help="the images' names")
    args = parser.parse_args(argv)
    simulation = simulation_at(args.simulation, args.base, args.at)
    step = simulation.step_at(args.at)
    IMAGES.mkdir(parents=True, exist_ok=True)
    with viewer_page(simulation.owner, width=1440, height=1060) as (page, url):
        open_viewer(page, url, simulation.pk)
        if simulation.step != step:
            scrub(page, step)
        page.wait_for_timeout(1000)  # the residents' last walk, the panels' lists
        town = IMAGES / f"{args.prefix}-town.png"
        page.screenshot(path=str(town))
        for _ in range(ZOOMS):
            page.click("#zoom-in")
        # The sector in the middle of the map, and the resident nearest it in the panel.
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
            args.sector,
        )
        page.evaluate(f"() => window.smallvilleViewer.select({nearest})")
        page.wait_for_selector("#resident-action")
        page.wait_for_timeout(500)
        sector = IMAGES / f"{args.prefix}-{args.sector.lower().replace(' ', '-')}.png"
        page.screenshot(path=str(sector))
    print(f"step {step} of simulation {simulation.pk}: {town}, {sector}")


if __name__ == "__main__":
    main()
