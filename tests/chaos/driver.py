"""The chaos tests' hands on a database the test process is not connected to (a private
Postgres): `python -m tests.chaos.driver start SEED` creates a simulation and starts its run
(a tick to SMALLVILLE_QUEUE); `... finish ID LEFT...` waits for the ledger to be settled
and prints, as JSON, the run's facts, its undisturbed twin's (run here, inline) and the
ledger's books. DATABASE_URL and the model settings come from the environment."""

from __future__ import annotations

import json
import sys

import django


def main(argv: list[str]) -> None:
    django.setup()
    from django.contrib.auth.models import User
    from django.core.serializers.json import DjangoJSONEncoder

    from runtime import engine
    from world.models import Simulation

    from .harness import STEPS, chaos_simulation, facts, ledger_books, ledger_settled, twin_of

    command, *args = argv
    if command == "start":
        user, _ = User.objects.get_or_create(username="chaos")
        simulation = chaos_simulation(user, seed=int(args[0]))
        engine.simulation_run(simulation=simulation, steps=STEPS)
        print(json.dumps({"simulation": simulation.pk}))
    elif command == "finish":
        simulation = Simulation.objects.get(pk=int(args[0]))
        ledger_settled(simulation, [int(pk) for pk in args[1:]])
        twin = engine.simulation_run_inline(simulation=twin_of(simulation), steps=STEPS)
        out = {
            "status": [simulation.status, simulation.status_reason, simulation.step],
            "books": ledger_books(simulation),
            "run": facts(simulation).__dict__,
            "twin": facts(twin).__dict__,
        }
        print(json.dumps(out, cls=DjangoJSONEncoder))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
